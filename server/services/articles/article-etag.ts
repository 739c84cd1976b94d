import { createHash } from "node:crypto";

/**
 * An article's strong entity tag (issue 71: `ETag` of `GET /articles/{id}` under the preview):
 * `"<version>-<22 base64url characters of sha256("article:<id>:<version>")>"`. Opaque to clients.
 */
export function articleEtag(id: string, version: number): string {
  const hash = createHash("sha256").update(`article:${id}:${version}`).digest("base64url").slice(0, 22);
  return `"${version}-${hash}"`;
}
