// Liveness for load balancers: constant JSON, no auth, no database.
export const dynamic = "force-static";

export function GET(): Response {
  return Response.json({ status: "ok" });
}
