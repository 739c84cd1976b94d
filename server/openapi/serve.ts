import { createHash } from "node:crypto";
import { openApiDocument } from "./document";

let body: { json: string; etag: string } | undefined;

/**
 * Answer of `GET /api/public/v1/openapi.json`: the document (no key needed), with a strong `ETag` of its
 * bytes; a matching `If-None-Match` answers 304. The document only changes with a deploy, so it is built
 * and serialised once per process.
 */
export function openApiResponse(request: Request): Response {
  body ??= (() => {
    const json = JSON.stringify(openApiDocument());
    return { json, etag: `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"` };
  })();
  const headers = {
    etag: body.etag,
    "cache-control": "public, max-age=300",
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
  };
  if (request.headers.get("if-none-match") === body.etag) return new Response(null, { status: 304, headers });
  return new Response(body.json, { status: 200, headers: { ...headers, "content-type": "application/json" } });
}
