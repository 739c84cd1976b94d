import { and, eq, gte, like, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, requestLog } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";

/** How long request-log rows are kept: 30 days (issue 19 item 5; server/jobs/retention.ts deletes older). */
export const REQUEST_LOG_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Status classes staff filter by. */
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Filters of the console's request log; every one optional. */
export interface RequestLogFilters {
  integrationId?: string;
  statusClass?: StatusClass;
  /**
   * Path below `/api/public/v1`: text starting with `/` matches paths that start with it (`/cards`
   * matches `/cards` and `/cards/socks`); other text matches paths that contain it.
   */
  path?: string;
  /** Exact `X-Request-Id` (`req_...`). */
  requestId?: string;
}

/** One request as the console lists it. */
export interface RequestLogRow {
  id: number;
  createdAt: string;
  integrationId: string | null;
  integrationName: string | null;
  keyId: string | null;
  method: string;
  path: string;
  status: number;
  problemCode: string | null;
  latencyMs: number;
  requestId: string;
  callerAddress: string | null;
  /** The answer was replayed from an idempotency record (`Idempotent-Replayed: true`, issue 75 item 6). */
  replayed: boolean;
}

/** Keyset position: the last row's (created_at, id). */
export interface RequestLogCursor {
  createdAt: string;
  id: number;
}

/** `%` and `_` (and the escape itself) typed by staff match only themselves in LIKE. */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function conditions(actor: StaffActor, f: RequestLogFilters, after: RequestLogCursor | null): SQL {
  const r = requestLog;
  const low = f.statusClass ? Number(f.statusClass[0]) * 100 : 0;
  const path = f.path?.trim();
  const parts: (SQL | undefined)[] = [
    // The console's mode: in Test mode only the test key's sandbox requests, else only live ones.
    ownedBy(r, actor),
    // Rows older than the retention are invisible even before the daily job deletes them.
    gte(r.createdAt, new Date(nowMs() - REQUEST_LOG_RETENTION_MS)),
    f.integrationId ? eq(r.integrationId, f.integrationId) : undefined,
    f.statusClass ? and(gte(r.status, low), lt(r.status, low + 100)) : undefined,
    path
      ? path.startsWith("/")
        ? like(r.path, `${likeEscape(path)}%`)
        : sql`${r.path} ilike ${`%${likeEscape(path)}%`}`
      : undefined,
    f.requestId ? eq(r.requestId, f.requestId.trim()) : undefined,
    after
      ? or(
          lt(r.createdAt, new Date(after.createdAt)),
          and(eq(r.createdAt, new Date(after.createdAt)), lt(r.id, after.id)),
        )
      : undefined,
  ];
  return and(...parts)!;
}

/**
 * A page of the tenant's request log (issue 19 item 5) in the actor's mode (tenant-scope.ts; a row carries
 * the mode its key worked in), newest first, keyset on (created_at, id) over the index
 * `request_log_tenant_created_idx` (tenant, mode, created_at, id). Any member of the tenant may read it: it
 * holds ids, paths and statuses, no personal data. Requests refused before a key was verified belong to no tenant and
 * are never listed. Rows appear about a second after their answer (the writer batches).
 * @param limit rows per page (1–200)
 * @param after the previous page's `next`, or null for the first page
 */
export async function requestLogPage(
  db: Db,
  actor: StaffActor,
  filters: RequestLogFilters,
  limit: number,
  after: RequestLogCursor | null,
): Promise<{ rows: RequestLogRow[]; next: RequestLogCursor | null }> {
  const r = requestLog;
  const found = await db
    .select({
      id: r.id,
      createdAt: r.createdAt,
      integrationId: r.integrationId,
      integrationName: integrations.name,
      keyId: r.keyId,
      method: r.method,
      path: r.path,
      status: r.status,
      problemCode: r.problemCode,
      latencyMs: r.latencyMs,
      requestId: r.requestId,
      callerAddress: r.callerAddress,
      replayed: r.replayed,
    })
    .from(r)
    .leftJoin(integrations, and(eq(integrations.id, r.integrationId), eq(integrations.tenantId, actor.tenantId)))
    .where(conditions(actor, filters, after))
    // NULLS LAST as the indexes are declared (both columns are never null): PostgreSQL reads an index in
    // order only for the nulls placement it was built with, and `desc` alone means NULLS FIRST, which made
    // every page a read of the tenant's whole log and a sort.
    .orderBy(sql`${r.createdAt} desc nulls last`, sql`${r.id} desc nulls last`)
    .limit(limit + 1);
  const rows = found.slice(0, limit).map((x): RequestLogRow => ({ ...x, createdAt: x.createdAt.toISOString() }));
  const last = rows[rows.length - 1];
  return { rows, next: found.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}
