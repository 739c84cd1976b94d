import { createHash } from "node:crypto";

/** What an article's entity tag covers: its content version and the state around it. */
export interface ArticleEtagSource {
  id: string;
  /** `articles.version`: moves with every edit of the content or its fields (the publication jobs' version). */
  version: number;
  status: string;
  publishedAt: Date | null;
  /** The stored publication (`articles.publication`), or null. */
  publication: unknown;
}

/**
 * An article's strong entity tag (issue 71: `ETag` of `GET /articles/{id}` under the preview):
 * `"<version>-<22 base64url characters of a SHA-256>"` over the id, the version, the status, `published_at`
 * and the publication. The version alone would not do: a connector's result or a confirmed hand-off makes
 * the article `published` (and changes its publication) without an edit of its content, and the tag must
 * change with every change of the article. Opaque to clients.
 */
export function articleEtag(a: ArticleEtagSource): string {
  const state = JSON.stringify([a.id, a.version, a.status, a.publishedAt?.toISOString() ?? null, a.publication]);
  const hash = createHash("sha256").update(`article:${state}`).digest("base64url").slice(0, 22);
  return `"${a.version}-${hash}"`;
}
