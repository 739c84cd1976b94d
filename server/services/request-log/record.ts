import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executePrepared } from "@/db/prepared";
import { apiKeys, requestLog, tenants, usageDaily } from "@/db/schema";
import { RowBuffer } from "./row-buffer";

/**
 * One public API request as the pipeline saw it when it answered (issue 19 item 5). Ids only: never the
 * key's secret, the query string or a body.
 */
export interface RequestLogEntry {
  /** When the request arrived. */
  createdAt: Date;
  /** Null when the request was refused before a key was verified (401, unknown path, the address's 429). */
  tenantId: string | null;
  /**
   * The data mode the request worked in (issue 69): the actor's `livemode` (false for a test key of a
   * tenant with the preview `test-mode`); true when no key was verified. A row attributed at flush to a
   * verified-but-refused key ({@link refusedKeyId}) takes that key's mode instead.
   */
  livemode: boolean;
  integrationId: string | null;
  /** Internal `api_keys.id` of the verified key; null like `tenantId`. */
  apiKeyId: string | null;
  /** Public `key_id` of the verified key. */
  keyId: string | null;
  /**
   * Public `key_id` of a key whose secret was verified but which was then refused (403 `ip_not_allowed`,
   * `tenant_inactive`, `feature_not_in_plan`, 401/403 `integration_inactive`): the writer attributes the row
   * to that key's tenant and integration when it flushes, so the tenant sees why its calls fail. Never
   * set for a key whose secret did not match.
   */
  refusedKeyId?: string | null;
  method: string;
  /** Path below `/api/public/v1`, no query string. */
  path: string;
  status: number;
  /** Catalog code of a problem answer; null on success. */
  problemCode: string | null;
  /** Milliseconds from arrival to answer. */
  latencyMs: number;
  requestId: string;
  callerAddress: string | null;
  /**
   * The answer was rebuilt from an idempotency record (`Idempotent-Replayed: true`, issue 75 item 6); the
   * console marks such rows "Replayed". Absent: false.
   */
  replayed?: boolean;
}

/**
 * One row of the request log as the JSON text that {@link writeRequestLogRows} reads, made when the request
 * is answered: the writer queues this text alone, so nothing else of the request waits on the JavaScript
 * heap for the flush (npm run bench: the rows queued as objects were about 1.3 KB of promoted garbage a
 * request). The keys are those of the INSERT's `json_to_recordset` column list; `r` is the public `key_id`
 * of a verified-but-refused key ({@link RequestLogEntry.refusedKeyId}) on a row with no tenant, to attribute.
 */
export function requestLogRowText(e: RequestLogEntry): string {
  return JSON.stringify({
    // Milliseconds since the epoch: a number costs less to write than an ISO text (toISOString).
    c: e.createdAt.getTime(),
    t: e.tenantId,
    v: e.livemode,
    i: e.integrationId,
    a: e.apiKeyId,
    k: e.keyId,
    r: e.tenantId ? null : (e.refusedKeyId ?? null),
    m: e.method.slice(0, 16),
    p: e.path.slice(0, 1000),
    s: e.status,
    e: e.problemCode,
    l: e.latencyMs,
    q: e.requestId,
    ip: e.callerAddress?.slice(0, 100) ?? null,
    rp: e.replayed === true,
  });
}

/**
 * Writes request-log rows given as entries (tests, the bench): their texts in arrays as the writer makes
 * them (row-buffer.ts), a statement each.
 * @returns the number of statements run
 * @throws whatever the database throws
 */
export async function writeRequestLog(db: Db, entries: readonly RequestLogEntry[]): Promise<number> {
  const rows = new RowBuffer();
  for (const e of entries) rows.add(requestLogRowText(e));
  const arrays = rows.take();
  for (const array of arrays) await writeRequestLogRows(db, array.json);
  return arrays.length;
}

/**
 * Writes one batch of request-log rows in one statement: the rows travel as one JSON array parameter
 * (texts of {@link requestLogRowText}) expanded by `json_to_recordset`. In the same statement:
 * - a row of a refused-but-verified key (`r`) is attributed to that key's tenant, integration and key
 *   (a key deleted meanwhile leaves it unattributed), and to that key's data mode: the sandbox for a test
 *   key of a tenant with the preview `test-mode`, as authentication would have set it (issue 69);
 * - each verified key's `last_used_at` and `last_used_address` take its latest request of the batch (a
 *   refused request is no use of the key; a stamp never moves backwards when batches of two processes
 *   cross);
 * - the batch's rows with a tenant and an integration are counted into `usage_daily` by (tenant, mode, UTC
 *   day, integration, status class) (`requests = requests + excluded.requests`, in key order so two
 *   writers never wait on each other in a cycle): the console's usage charts read these counts, never the
 *   log (issue 74 item 4). One statement, so the counts and the rows they count commit together.
 * @param rows a JSON array of row texts (row-buffer.ts keeps it under REQUEST_LOG_ARRAY_BYTES)
 * @throws whatever the database throws; the writer logs and drops the batch
 */
export async function writeRequestLogRows(db: Db, rows: string): Promise<void> {
  // Building a 12-parameter-per-row INSERT cost ~45 µs of CPU per row in the query builder (npm run bench);
  // the rows' texts are made as requests are answered, and joined here.
  await executePrepared(
    db,
    "request_log_write",
    sql`
    with x as (
      select to_timestamp(c / 1000) as c, t, v, i, a, k, r, m, p, s, e, l, q, ip, rp, n
      from rows from (json_to_recordset(${rows}::json) as (c float8, t uuid, v boolean, i uuid, a uuid, k text, r text,
        m text, p text, s smallint, e text, l real, q text, ip text, rp boolean)) with ordinality as x(c, t, v, i, a, k,
        r, m, p, s, e, l, q, ip, rp, n)
    ), logged as (
      insert into ${requestLog} (created_at, tenant_id, livemode, integration_id, api_key_id, key_id, method, path,
                                 status, problem_code, latency_ms, request_id, caller_address, replayed)
      select x.c, coalesce(x.t, o.tenant_id), coalesce(o.livemode, x.v, true), coalesce(x.i, o.integration_id),
             coalesce(x.a, o.id), coalesce(x.k, o.key_id), x.m, x.p, x.s, x.e, x.l, x.q, x.ip, coalesce(x.rp, false)
      -- OFFSET 0 keeps the lookup per row, by the key_id index and only where r is set, instead of a join
      -- the planner may make by reading every key.
      from x left join lateral (
        select k.id, k.tenant_id, k.integration_id, k.key_id,
               not (k.mode = 'test' and 'test-mode' = any(tn.previews)) as livemode
        from ${apiKeys} k join ${tenants} tn on tn.id = k.tenant_id
        where x.r is not null and k.key_id = x.r offset 0
      ) o on true
      -- Ids in the order the rows were queued (the join's plan may emit them in another).
      order by x.n
      returning created_at, tenant_id, livemode, integration_id, status
    ), counted as (
      insert into ${usageDaily} (tenant_id, livemode, day, integration_id, status_class, requests)
      select tenant_id, livemode, (created_at at time zone 'UTC')::date, integration_id, (status / 100)::smallint,
             count(*)::int
      from logged where tenant_id is not null and integration_id is not null
      group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
      on conflict (tenant_id, livemode, day, integration_id, status_class)
      do update set requests = ${usageDaily}.requests + excluded.requests
    )
    update ${apiKeys} set last_used_at = u.c, last_used_address = u.ip
    from (select distinct on (a) a, c, ip from x where a is not null order by a, c desc) u
    where ${apiKeys.id} = u.a and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} <= u.c)`,
  );
}
