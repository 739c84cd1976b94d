import { referenceAsset } from "@/server/openapi/reference-assets";

// Swagger UI's files for /docs/api, from node_modules (allowlisted names only): the reference works offline.
export const runtime = "nodejs";

export async function GET(_request: Request, ctx: { params: Promise<{ file: string }> }): Promise<Response> {
  return referenceAsset((await ctx.params).file);
}
