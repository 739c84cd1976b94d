import { createHash } from "node:crypto";
import { isPreviewFeature, type PreviewFeature } from "@/server/schemas/previews";
import { openApiDocument } from "./document";

const bodies = new Map<string, { json: string; etag: string }>();

/**
 * Answer of `GET /api/public/v1/openapi.json`: the document (no key needed), with a strong `ETag` of its
 * bytes; a matching `If-None-Match` answers 304. `?preview=<feature>` (e.g. `conversation-writes`) adds
 * that preview's routes; an unknown preview name answers 404. The document only changes with a deploy,
 * so each is built and serialised once per process.
 */
export function openApiResponse(request: Request): Response {
  const preview = new URL(request.url).searchParams.get("preview");
  if (preview !== null && !isPreviewFeature(preview))
    return Response.json(
      { title: "Not found", status: 404, detail: `No preview named "${preview}".` },
      { status: 404, headers: { "content-type": "application/problem+json" } },
    );
  const name = (preview ?? "") as PreviewFeature | "";
  let body = bodies.get(name);
  if (!body) {
    const json = JSON.stringify(openApiDocument(name || undefined));
    body = { json, etag: `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"` };
    bodies.set(name, body);
  }
  const headers = {
    etag: body.etag,
    "cache-control": "public, max-age=300",
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
  };
  if (request.headers.get("if-none-match") === body.etag) return new Response(null, { status: 304, headers });
  return new Response(body.json, { status: 200, headers: { ...headers, "content-type": "application/json" } });
}
