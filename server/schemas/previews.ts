/**
 * Preview features a tenant can be switched into (`npm run admin -- preview:set`). A preview route is a
 * Planned route of the spec that works only for tenants with its feature; for every other caller it
 * answers exactly as a Planned route does (404 `not_found`).
 * - `conversation-writes`: the spec's "Planned conversation write routes".
 * - `test-mode`: the tenant's sandbox (issue 69): its `test` keys live in a separate copy of the tenant's
 *   world, with the test helpers (`/test-helpers/*`).
 * - `leads-writes`: lead writes with `If-Match`, paid lead scoring, the CRM status map, `GET /disclosures` (issue 70).
 * - `articles-writes`: article edits under `If-Match`, approval, publication (target `none` or a site
 *   connector's job), `GET /sites` (issue 71).
 * - `article-generation`: the editorial profile and paid article generation jobs (issue 72).
 * - `strategist`: decisions on the strategist's topics and actions, chat sessions with paid turns, daily
 *   reports (issue 73).
 * - `event-intake`: `POST /intake/events` and the analytics reads computed from it (timeseries, traffic
 *   sources, funnel), the dashboard's blocks from the same rollups (issue 74).
 */
export const PREVIEW_FEATURES = [
  "conversation-writes",
  "test-mode",
  "leads-writes",
  "articles-writes",
  "article-generation",
  "strategist",
  "event-intake",
] as const;
export type PreviewFeature = (typeof PREVIEW_FEATURES)[number];

/** True when `v` names a preview feature. */
export function isPreviewFeature(v: unknown): v is PreviewFeature {
  return typeof v === "string" && (PREVIEW_FEATURES as readonly string[]).includes(v);
}
