import { and, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { literalLimit, planlessPlaceholder, preparedRows } from "@/db/prepared";
import { leads } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { Lead, LeadStatus } from "@/server/schemas/leads";
import type { Actor } from "../actor";
import { livemodeOf } from "../tenant-scope";
import { LEAD_FROM, LEAD_SELECT, leadIdOf, leadUpdatedAtOf, type LeadTextRow } from "./lead-view";

/**
 * Keyset position of a lead in list order: (updated_at ISO, id). `updated_at` is stored with millisecond
 * precision (timestamptz(3)), so the ISO text of a JS Date is the exact stored moment.
 */
export type LeadPosition = [string, string];

/** Filters of `GET /leads` (spec "GET /leads"). `updatedSince` is inclusive, `updatedAfter` strict. */
export interface LeadFilters {
  status?: LeadStatus;
  archived: boolean;
  updatedSince?: Date;
  updatedAfter?: Date;
  source?: string;
}

/**
 * One page of `GET /leads` of the actor's tenant and mode (tenant-scope.ts): ascending by `(updated_at, id)`,
 * strictly after `after`. Fetches `limit + 1` rows to know whether another page follows.
 * @returns each lead as the JSON text of the spec's Lead (in `texts`, with its id at the same index in
 * `ids`) and the position of the last one when more follow (else null).
 */
export async function listLeads(
  db: Db,
  actor: Actor,
  q: LeadFilters & { limit: number; after?: LeadPosition },
): Promise<{ texts: string[]; ids: string[]; next: LeadPosition | null }> {
  const has = {
    status: q.status !== undefined,
    source: q.source !== undefined,
    since: q.updatedSince !== undefined,
    afterTime: q.updatedAfter !== undefined,
    after: q.after !== undefined,
  };
  const shape = `leads:list:${Object.values(has).map(Number).join("")}:${q.limit + 1}`;
  const rows = await preparedRows<LeadTextRow>(db, shape, () => {
    const l = leads;
    // Every value through an initplan: the one index (tenant, livemode, archived, updated_at, id) is the plan for
    // every value, and a large tenant's statement would otherwise be planned again on every run (planlessPlaceholder).
    const v = planlessPlaceholder;
    const conds = [
      sql`${l.tenantId} = ${v("tenant", "uuid")}`,
      sql`${l.livemode} = ${v("livemode", "boolean")}`,
      sql`${l.archived} = ${v("archived", "boolean")}`,
    ];
    if (has.status) conds.push(sql`${l.status} = ${v("status", "text")}`);
    if (has.source) conds.push(sql`${l.source} = ${v("source", "text")}`);
    if (has.since) conds.push(sql`${l.updatedAt} >= ${v("since", "timestamptz")}`);
    if (has.afterTime) conds.push(sql`${l.updatedAt} > ${v("afterTime", "timestamptz")}`);
    if (has.after)
      conds.push(sql`(${l.updatedAt}, ${l.id}) > (${v("afterAt", "timestamptz")}, ${v("afterId", "uuid")})`);
    return sql`select ${LEAD_SELECT} from ${LEAD_FROM}
      where ${and(...conds)} order by ${l.updatedAt}, ${l.id} limit ${literalLimit(q.limit + 1)}`;
  }).execute({
    tenant: actor.tenantId,
    livemode: livemodeOf(actor),
    archived: q.archived,
    status: q.status,
    source: q.source,
    since: q.updatedSince?.toISOString(),
    afterTime: q.updatedAfter?.toISOString(),
    afterAt: q.after?.[0],
    afterId: q.after?.[1],
  });
  const page = rows.slice(0, q.limit).map((r) => r.json);
  const last = page[page.length - 1];
  return {
    texts: page,
    ids: page.map(leadIdOf),
    next: rows.length > q.limit && last ? [leadUpdatedAtOf(last), leadIdOf(last)] : null,
  };
}

/** `GET /leads/{id}`. @throws ApiError 404 `not_found` for a missing lead, one of another tenant or of the other mode. */
export async function getLead(db: Db, actor: Actor, id: string): Promise<Lead> {
  const [row] = await preparedRows<LeadTextRow>(
    db,
    "leads:get",
    () => sql`select ${LEAD_SELECT} from ${LEAD_FROM}
      where ${leads.tenantId} = ${sql.placeholder("tenant")} and ${leads.livemode} = ${sql.placeholder("livemode")}
        and ${leads.id} = ${sql.placeholder("id")}`,
  ).execute({ tenant: actor.tenantId, livemode: livemodeOf(actor), id });
  if (!row) throw notFound("Lead");
  return JSON.parse(row.json) as Lead;
}
