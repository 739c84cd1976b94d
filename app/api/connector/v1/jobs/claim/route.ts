import { serveConnector } from "@/server/public-api/connector/door";

// `POST /api/connector/v1/jobs/claim?wait=N`: a site connector's long poll for its next job (docs/site-connector.md).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return serveConnector(request, "claimJob");
}
