import { createHash } from "node:crypto";
import { ApiError } from "@/server/errors";

/**
 * A lead's strong entity tag (spec "Lead": `etag`, the `ETag` header): `"<version>-<22 base64url characters
 * of sha256("<id>:<version>")>"`, the same text as the generated column `leads.etag` (migration 0015). It is
 * opaque to clients; the version in front only makes it readable in logs.
 */
export function leadEtag(id: string, version: number): string {
  const hash = createHash("sha256").update(`${id}:${version}`).digest("base64url").slice(0, 22);
  return `"${version}-${hash}"`;
}

/** One entity tag of an `If-Match` list (RFC 9110 §8.8.3): its quoted text and whether it is weak (`W/`). */
export interface EntityTag {
  tag: string;
  weak: boolean;
}

const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/**
 * Parses an `If-Match` header of `PATCH /leads/{id}` (spec "Common request rules"): one entity tag or a
 * comma-separated list of them.
 * @throws ApiError 428 `precondition_required` when the header is absent or empty; 400 `bad_request` when a
 *   member is not an entity tag, and for `*` (the lead exists whenever the route answers, so `*` would be
 *   no precondition at all: send the `etag` you read).
 */
export function parseIfMatch(header: string | null): EntityTag[] {
  if (header === null || header.trim() === "")
    throw new ApiError(
      "precondition_required",
      "PATCH /leads/{id} needs an If-Match header with the lead's etag (from GET /leads/{id} or the lead's `etag`).",
    );
  const parts = header.split(",").map((p) => p.trim());
  if (parts.some((p) => p === "*"))
    throw new ApiError(
      "bad_request",
      'If-Match "*" is not accepted here: send the lead\'s etag, e.g. If-Match: "3-…".',
    );
  const tags: EntityTag[] = [];
  for (const p of parts) {
    const m = ENTITY_TAG.exec(p);
    if (!m)
      throw new ApiError(
        "bad_request",
        'If-Match must be an entity tag in double quotes, as the ETag header sent it (e.g. "3-AbC…").',
      );
    tags.push({ tag: m[2]!, weak: Boolean(m[1]) });
  }
  return tags;
}

/**
 * Strong comparison (RFC 9110 §8.8.3.2): true when a strong tag of the list equals `current`. A weak tag
 * never matches a change's precondition.
 */
export function ifMatchAllows(tags: readonly EntityTag[], current: string): boolean {
  return tags.some((t) => !t.weak && t.tag === current);
}

/** 412 `precondition_failed` carrying the lead's current `etag` (the problem's extra member). */
export function preconditionFailed(currentEtag: string): ApiError {
  return new ApiError(
    "precondition_failed",
    "The lead changed since you read it (If-Match is not its current etag); read it again and reapply your change.",
    { etag: currentEtag },
  );
}
