import { randomBytes } from "node:crypto";
import { and, asc, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { sites } from "@/db/schema";
import { hashSecret } from "../keys/key-format";
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

/**
 * Adds a site and answers its connector token once (`sct_` + 32 random bytes base64url); only the token's
 * hash is stored, as for API keys.
 */
export async function createSite(
  db: Db,
  owner: Owner,
  input: { domain: string; draftsOnly: boolean },
): Promise<{ siteId: string; connectorToken: string }> {
  const token = `sct_${randomBytes(32).toString("base64url")}`;
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
