import { serveAttachment } from "@/server/public-api/side-routes";

// Temporary signed links to message attachments (spec "Message"): no API key, the signature is the
// permission; an expired or altered link answers 403, an unknown file 404.
export const dynamic = "force-dynamic";

export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  const url = new URL(request.url);
  return serveAttachment(id, url.searchParams.get("expires"), url.searchParams.get("signature"));
}
