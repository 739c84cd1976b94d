import { and, desc, eq, gte, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, disclosures } from "@/db/schema";
import type { Disclosure } from "@/server/schemas/lead-writes";
import type { IntegrationActor } from "../actor";
import { ownedBy } from "../tenant-scope";

/** Filters of `GET /disclosures`: resource type, `from` inclusive, `to` exclusive. */
export interface DisclosureFilters {
  resourceType?: string;
  from?: Date;
  to?: Date;
}

/**
 * `GET /disclosures` (issue 70 item 5): the disclosure-journal rows of the caller's integration in its mode,
 * newest first by `(created_at, id)`, strictly after `after` in that order. Reading the journal discloses no
 * personal data (ids, routes and request ids only), so it writes no journal row itself.
 * @returns the page and the position of its last row when more follow (else null)
 */
export async function listIntegrationDisclosures(
  db: Db,
  actor: IntegrationActor,
  q: DisclosureFilters & { limit: number; after?: readonly [string, string] },
): Promise<{ data: Disclosure[]; next: [string, string] | null }> {
  const after = q.after ? new Date(q.after[0]) : null;
  const conds: (SQL | undefined)[] = [
    ownedBy(disclosures, actor),
    eq(disclosures.integrationId, actor.integrationId),
    q.resourceType ? eq(disclosures.resourceType, q.resourceType) : undefined,
    q.from ? gte(disclosures.createdAt, q.from) : undefined,
    q.to ? lt(disclosures.createdAt, q.to) : undefined,
    after
      ? or(lt(disclosures.createdAt, after), and(eq(disclosures.createdAt, after), lt(disclosures.id, q.after![1])))
      : undefined,
  ];
  const rows = await db
    .select({
      id: disclosures.id,
      createdAt: disclosures.createdAt,
      resourceType: disclosures.resourceType,
      resourceIds: disclosures.resourceIds,
      route: disclosures.route,
      requestId: disclosures.requestId,
      keyId: apiKeys.keyId,
    })
    .from(disclosures)
    .leftJoin(apiKeys, eq(apiKeys.id, disclosures.apiKeyId))
    .where(and(...conds))
    .orderBy(desc(disclosures.createdAt), desc(disclosures.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => ({
      id: r.id,
      created_at: r.createdAt.toISOString(),
      resource_type: r.resourceType,
      resource_ids: r.resourceIds,
      route: r.route,
      request_id: r.requestId,
      key_id: r.keyId ?? null,
    })),
    next: rows.length > q.limit && last ? [last.createdAt.toISOString(), last.id] : null,
  };
}
