import { serveReadiness } from "@/server/public-api/side-routes";

// Readiness for load balancers: 200 while the database and the limit store answer, else 503 with
// Retry-After, so traffic is sent elsewhere until they are back.
export const dynamic = "force-dynamic";

export function GET(): Promise<Response> {
  return serveReadiness();
}
