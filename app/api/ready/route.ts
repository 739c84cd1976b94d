import { checkReadiness } from "@/server/services/health/readiness";

// Readiness for load balancers: 200 while the database and the limit store answer, else 503 with
// Retry-After, so traffic is sent elsewhere until they are back. No auth; names no hosts or errors.
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const r = await checkReadiness();
  return Response.json(
    { status: r.ready ? "ready" : "unavailable", checks: r.checks },
    { status: r.ready ? 200 : 503, headers: r.ready ? { "cache-control": "no-store" } : { "cache-control": "no-store", "retry-after": "5" } },
  );
}
