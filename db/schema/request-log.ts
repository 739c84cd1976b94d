import { bigint, boolean, index, pgTable, real, smallint, text, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

/**
 * One public API request (issue 19 item 5), kept 30 days (server/jobs/retention.ts). Written in batches
 * off the request's path (server/services/request-log/writer.ts), so a row appears about a second after
 * its answer. No foreign keys on purpose: a batch must never fail because an integration was deleted in
 * the meantime, and retention removes every row within 30 days anyway.
 * A request refused before its key was verified (401, an unknown path, the address's 429) has a null
 * `tenant_id`: it is only the platform's to see, since an unverified key id would let anyone write into
 * a tenant's log.
 */
export const requestLog = pgTable(
  "request_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** When the request arrived (not when the row was written). */
    createdAt: ts("created_at").notNull(),
    tenantId: uuid("tenant_id"),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    integrationId: uuid("integration_id"),
    /** Internal id of the key (`api_keys.id`), for the last-used stamp. */
    apiKeyId: uuid("api_key_id"),
    /** Public `key_id` of the key, as the console shows it; never the secret. */
    keyId: text("key_id"),
    method: text("method").notNull(),
    /** Path below `/api/public/v1` (e.g. `/cards/socks`), without the query string (it may hold personal data). */
    path: text("path").notNull(),
    status: smallint("status").notNull(),
    /** The catalog code of a problem answer (`invalid_api_key`...); null on success. */
    problemCode: text("problem_code"),
    /** Time from the request's arrival to its answer, milliseconds. */
    latencyMs: real("latency_ms").notNull(),
    requestId: text("request_id").notNull(),
    /** The caller's address as the trusted-proxy setting decides it (server/lib/client-ip.ts). */
    callerAddress: text("caller_address"),
    /** True when the answer was replayed from an idempotency record (`Idempotent-Replayed: true`, issue 75). */
    replayed: boolean("replayed").notNull().default(false),
  },
  (t) => [
    // The console's page and the usage charts: one tenant, newest first (keyset on created_at, id).
    index("request_log_tenant_created_idx").on(t.tenantId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index("request_log_tenant_integration_idx").on(
      t.tenantId,
      t.livemode,
      t.integrationId,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    index("request_log_tenant_request_idx").on(t.tenantId, t.requestId),
    // Retention deletes by age over every tenant (and none): a BRIN index suits an append-only time column.
    index("request_log_created_brin").using("brin", t.createdAt),
  ],
);
