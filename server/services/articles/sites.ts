import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { sites } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import { hashSecret } from "../keys/key-format";
import { mainDomainInput } from "../tenants/main-domain";
import type { Owner } from "../tenant-scope";
import { ownedBy, ownerOf } from "../tenant-scope";

/** A connector polled within this long counts as working (issue 71). */
export const SITE_WORKING_MS = 5 * 60_000;

/** `not_linked` (never polled), `working` (polled within 5 minutes), `not_working`. */
export type SiteStatus = "not_linked" | "working" | "not_working";

/** The site's status from its connector's last poll at `now`. */
export function siteStatus(lastSeenAt: Date | null, now: Date): SiteStatus {
  if (!lastSeenAt) return "not_linked";
  return now.getTime() - lastSeenAt.getTime() <= SITE_WORKING_MS ? "working" : "not_working";
}

/** A site as `GET /sites` answers it. */
export interface SiteView {
  id: string;
  domain: string;
  status: SiteStatus;
  drafts_only: boolean;
  last_seen_at: string | null;
}

/** `GET /sites`: the owner's sites that are not revoked, oldest first (a tenant has a handful). */
export async function listSites(db: Db, owner: Owner): Promise<SiteView[]> {
  const now = new Date();
  const rows = await db
    .select()
    .from(sites)
    .where(and(ownedBy(sites, owner), isNull(sites.revokedAt)))
    .orderBy(asc(sites.createdAt), asc(sites.id));
  return rows.map((s) => ({
    id: s.id,
    domain: s.domain,
    status: siteStatus(s.lastSeenAt, now),
    drafts_only: s.draftsOnly,
    last_seen_at: s.lastSeenAt ? s.lastSeenAt.toISOString() : null,
  }));
}

/** A new connector token: `sct_` + 32 random bytes base64url (shown once; only its hash is stored). */
function newConnectorToken(): string {
  return `sct_${randomBytes(32).toString("base64url")}`;
}

/**
 * A site's domain as the console's "Add site" form sends it: a host name (no scheme, port or path), stored
 * lower case, an international name as punycode (the main domain's rules, tenants/main-domain.ts).
 * @throws ApiError `validation_failed` on `/domain`.
 */
export function siteDomainInput(input: string): string {
  const { domain, error } = mainDomainInput(input);
  if (error || !domain)
    throw invalidField(
      "/domain",
      error?.code ?? "required",
      "domain must be a host name such as blog.example.com (no https://, port or path).",
    );
  return domain;
}

/**
 * Adds a site and answers its connector token once (`sct_` + 32 random bytes base64url); only the token's
 * hash is stored, as for API keys.
 */
export async function createSite(
  db: Db,
  owner: Owner,
  input: { domain: string; draftsOnly: boolean },
): Promise<{ siteId: string; connectorToken: string }> {
  const token = newConnectorToken();
  const [row] = await db
    .insert(sites)
    .values({
      ...ownerOf(owner),
      domain: input.domain,
      draftsOnly: input.draftsOnly,
      connectorTokenHash: hashSecret(token),
    })
    .returning({ id: sites.id });
  return { siteId: row!.id, connectorToken: token };
}

/**
 * Rotates a site's connector token (the console's "Rotate token"): a new token is answered once and only
 * its hash replaces the old one's, so the old token stops working at once (a connector authenticates by the
 * hash). The site keeps its id, jobs and `last_seen_at`.
 * @throws ApiError 404 `not_found` for a revoked, foreign or other-mode site.
 */
export async function rotateSiteToken(db: Db, owner: Owner, siteId: string): Promise<{ connectorToken: string }> {
  const token = newConnectorToken();
  const [row] = await db
    .update(sites)
    .set({ connectorTokenHash: hashSecret(token) })
    .where(and(ownedBy(sites, owner), eq(sites.id, siteId), isNull(sites.revokedAt)))
    .returning({ id: sites.id });
  if (!row) throw notFound("Site");
  return { connectorToken: token };
}

/**
 * Revokes a site (the console's "Revoke"): `revoked_at` is set, it leaves `GET /sites` and a publish to it
 * is 404. Its token stops working twice over: the stored hash is replaced by the hash of a random token
 * nobody was shown, so even a lookup by hash alone finds nothing. The row stays for the publication
 * history of its articles.
 * @throws ApiError 404 `not_found` for a site already revoked, foreign or of the other mode.
 */
export async function revokeSite(db: Db, owner: Owner, siteId: string): Promise<void> {
  const [row] = await db
    .update(sites)
    .set({ revokedAt: new Date(), connectorTokenHash: hashSecret(newConnectorToken()) })
    .where(and(ownedBy(sites, owner), eq(sites.id, siteId), isNull(sites.revokedAt)))
    .returning({ id: sites.id });
  if (!row) throw notFound("Site");
}
