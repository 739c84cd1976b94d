// Liveness for load balancers: constant JSON, no auth, no database. Dynamic on purpose: the answer comes
// from a route handler of the running process on every call (a prerendered copy would be served by
// Next's static path), which also makes it the bench's "bare route" baseline for route-handler cost.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ status: "ok" });
}
