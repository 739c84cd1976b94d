import { paymentNotificationDoor } from "@/server/payments-door/notification";

// Payment providers' notifications: POST /api/payments/yookassa | stripe | sandbox (docs/payments.md).
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ provider: string }> }) {
  return paymentNotificationDoor(request, (await params).provider);
}
