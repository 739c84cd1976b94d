import { sandboxDecisionDoor } from "@/server/payments-door/sandbox-checkout";

// The sandbox checkout's "Pay" and "Decline" buttons post here.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  return sandboxDecisionDoor(request, (await params).id);
}
