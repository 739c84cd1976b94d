import { serveConnector } from "@/server/public-api/connector/door";

// `POST /api/connector/v1/jobs/{id}/result` of the site connector protocol (docs/site-connector.md).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function POST(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  return serveConnector(request, "reportResult", await ctx.params);
}
