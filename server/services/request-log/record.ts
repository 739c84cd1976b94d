import { inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executePrepared } from "@/db/prepared";
import { apiKeys, requestLog } from "@/db/schema";

/**
 * One public API request as the pipeline saw it when it answered (issue 19 item 5). Ids only: never the
 * key's secret, the query string or a body.
 */
export interface RequestLogEntry {
  /** When the request arrived. */
  createdAt: Date;
  /** Null when the request was refused before a key was verified (401, unknown path, the address's 429). */
  tenantId: string | null;
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
}

/** Rows per INSERT statement (its one JSON parameter stays a few hundred KB). */
export const REQUEST_LOG_INSERT_ROWS = 1_000;

/**
 * Writes a batch of request-log rows with one multi-row INSERT per {@link REQUEST_LOG_INSERT_ROWS} (the rows
 * as one JSON parameter expanded by `json_to_recordset`), then
 * stamps each verified key's `last_used_at` and `last_used_address` with its latest request of the batch
 * (one UPDATE for all keys; a stamp never moves backwards when batches of two processes cross).
 * Rows of refused-but-verified keys (`refusedKeyId`) are first attributed to their key's tenant,
 * integration and key (one SELECT); a key deleted meanwhile leaves its row unattributed.
 * @returns the number of INSERT statements run (for tests of the batching).
 * @throws whatever the database throws; the caller (the writer) logs and drops the batch.
 */
export async function writeRequestLog(db: Db, entries: readonly RequestLogEntry[]): Promise<number> {
  if (!entries.length) return 0;
  const refused = [...new Set(entries.map((e) => e.refusedKeyId).filter((k): k is string => !!k))];
  const owners = new Map<string, { id: string; tenantId: string; integrationId: string }>();
  if (refused.length) {
    const found = await db
      .select({
        id: apiKeys.id,
        keyId: apiKeys.keyId,
        tenantId: apiKeys.tenantId,
        integrationId: apiKeys.integrationId,
      })
      .from(apiKeys)
      .where(inArray(apiKeys.keyId, refused));
    for (const k of found) owners.set(k.keyId, k);
  }
  const rows = entries.map((e) => {
    const owner = !e.tenantId && e.refusedKeyId ? owners.get(e.refusedKeyId) : undefined;
    return {
      created_at: e.createdAt.toISOString(),
      tenant_id: e.tenantId ?? owner?.tenantId ?? null,
      integration_id: e.integrationId ?? owner?.integrationId ?? null,
      api_key_id: e.apiKeyId ?? owner?.id ?? null,
      key_id: e.keyId ?? (owner ? e.refusedKeyId! : null),
      method: e.method.slice(0, 16),
      path: e.path.slice(0, 1000),
      status: e.status,
      problem_code: e.problemCode,
      latency_ms: e.latencyMs,
      request_id: e.requestId,
      caller_address: e.callerAddress?.slice(0, 100) ?? null,
    };
  });
  let statements = 0;
  for (let i = 0; i < rows.length; i += REQUEST_LOG_INSERT_ROWS) {
    // The batch travels as one JSON parameter: building a 12-parameter-per-row INSERT cost ~45 µs of CPU
    // per row in the query builder (npm run bench), JSON.stringify a fraction of that.
    const json = JSON.stringify(rows.slice(i, i + REQUEST_LOG_INSERT_ROWS));
    await executePrepared(
      db,
      "request_log_insert",
      sql`
      insert into ${requestLog} (created_at, tenant_id, integration_id, api_key_id, key_id, method, path, status,
                                 problem_code, latency_ms, request_id, caller_address)
      select created_at, tenant_id, integration_id, api_key_id, key_id, method, path, status,
             problem_code, latency_ms, request_id, caller_address
      from json_to_recordset(${json}::json) as x(created_at timestamptz, tenant_id uuid, integration_id uuid,
        api_key_id uuid, key_id text, method text, path text, status smallint, problem_code text, latency_ms real,
        request_id text, caller_address text)`,
    );
    statements++;
  }
  await stampLastUsed(db, entries);
  return statements;
}

/**
 * `last_used_at` / `last_used_address` of every key that answered a request of the batch (verified keys
 * only, as before the request log: a refused request does not count as a use), from its latest request.
 */
async function stampLastUsed(db: Db, entries: readonly RequestLogEntry[]): Promise<void> {
  const latest = new Map<string, RequestLogEntry>();
  for (const e of entries) {
    if (!e.apiKeyId) continue;
    const seen = latest.get(e.apiKeyId);
    if (!seen || seen.createdAt.getTime() <= e.createdAt.getTime()) latest.set(e.apiKeyId, e);
  }
  if (!latest.size) return;
  const values = sql.join(
    [...latest.values()].map(
      (e) => sql`(${e.apiKeyId}::uuid, ${e.createdAt.toISOString()}::timestamptz, ${e.callerAddress}::text)`,
    ),
    sql`, `,
  );
  await db.execute(sql`
    update ${apiKeys} set last_used_at = v.at, last_used_address = v.address
    from (values ${values}) as v(id, at, address)
    where ${apiKeys.id} = v.id and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} <= v.at)`);
}
