import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executePrepared } from "@/db/prepared";
import { disclosures } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { groupCommit, type GroupCommit } from "@/server/lib/group-commit";
import { log } from "@/server/log";

/**
 * One disclosure: who (`apiKeyId` the key's row id; null for webhook deliveries) received which personal
 * records (`resourceType` and ids) through which door (`route`, e.g. `GET /leads/{id}` or `webhook lead.created`),
 * in which mode (`livemode`: that of the request that disclosed, `livemodeOf(actor)`, or of the delivery).
 */
export interface DisclosureRow {
  tenantId: string;
  /** The mode of the data disclosed (issue 69): the console's journal lists only rows of its own mode. */
  livemode: boolean;
  integrationId: string;
  apiKeyId: string | null;
  route: string;
  resourceType: string;
  resourceIds: string[];
  requestId: string;
}

/**
 * Writes the disclosure-journal row of an answer carrying personal data (spec general fact 6), before
 * the answer leaves. Call it with the ids that are about to be returned (an empty page records nothing).
 * Rows of concurrent answers are written together (group commit, see {@link GROUP_COMMIT_WINDOW_MS}):
 * one multi-row insert, one commit; this resolves only once that insert has committed, so every answer
 * still waits until its own row is durable.
 * @throws ApiError 503 `service_unavailable` when the row cannot be written (every answer of a failed
 *   batch gets it): then no data may leave.
 */
export async function recordDisclosure(db: Db, row: DisclosureRow): Promise<void> {
  if (row.resourceIds.length === 0) return;
  try {
    await enqueue(db, row);
  } catch (err) {
    log().error({ request_id: row.requestId, err: (err as Error).message }, "disclosure journal write failed");
    throw new ApiError(
      "service_unavailable",
      "Personal data cannot be returned right now because its disclosure cannot be recorded; retry after a pause.",
      {},
      { "retry-after": "5" },
    );
  }
}

/**
 * How long the first row of a batch waits for others, in ms. Short against a request (a personal-data
 * read takes several ms) and long enough for the answers that are being computed at the same moment to
 * join; under load the batch also grows while the previous insert is in flight.
 */
export const GROUP_COMMIT_WINDOW_MS = 2;

/** The most rows one insert carries (8 values a row in one JSON parameter). */
const MAX_BATCH_ROWS = 1000;

/**
 * A test hook run before each batch insert with the batch's rows: it counts the inserts, can hold the
 * batch (return a promise) or fail it (throw). Undefined in production.
 */
export type DisclosureBatchHook = (rows: readonly DisclosureRow[]) => void | Promise<void>;
let batchHook: DisclosureBatchHook | undefined;

/** Installs (or with `undefined` removes) the {@link DisclosureBatchHook}; tests only. */
export function setDisclosureBatchHook(hook: DisclosureBatchHook | undefined): void {
  batchHook = hook;
}

/** Per database: its journal's group commit (one multi-row insert and one commit per batch). */
const journals = new WeakMap<Db, GroupCommit<DisclosureRow, void>>();

function enqueue(db: Db, row: DisclosureRow): Promise<void> {
  let journal = journals.get(db);
  if (!journal) {
    journal = groupCommit<DisclosureRow, void>({
      windowMs: GROUP_COMMIT_WINDOW_MS,
      maxBatch: MAX_BATCH_ROWS,
      async write(rows) {
        await batchHook?.(rows);
        await insertBatch(db, rows);
      },
    });
    journals.set(db, journal);
  }
  return journal.submit(row);
}

/**
 * One multi-row insert of a batch. The rows travel as one JSON parameter expanded by `json_to_recordset`,
 * as the request log's do: drizzle's multi-row `values()` encodes 7 parameters a row, the id arrays
 * element by element, which cost more CPU per personal-data answer than the JSON text (issue 22).
 */
async function insertBatch(db: Db, rows: readonly DisclosureRow[]): Promise<void> {
  const json = JSON.stringify(
    rows.map((r) => ({
      tenant_id: r.tenantId,
      livemode: r.livemode,
      integration_id: r.integrationId,
      api_key_id: r.apiKeyId,
      route: r.route,
      resource_type: r.resourceType,
      resource_ids: r.resourceIds,
      request_id: r.requestId,
    })),
  );
  await executePrepared(
    db,
    "disclosures_insert",
    sql`
    insert into ${disclosures} (tenant_id, livemode, integration_id, api_key_id, route, resource_type, resource_ids,
      request_id)
    select tenant_id, livemode, integration_id, api_key_id, route, resource_type, resource_ids, request_id
    from json_to_recordset(${json}::json) as x(tenant_id uuid, livemode boolean, integration_id uuid, api_key_id uuid,
      route text, resource_type text, resource_ids text[], request_id text)`,
  );
}

/**
 * One disclosure-journal row as is (db/schema/operations.ts `disclosures`): who received which personal
 * records through which door. `apiKeyId` is null for webhook deliveries. Throws what the insert throws.
 */
export async function writeDisclosureRow(db: Db, row: DisclosureRow): Promise<void> {
  await db.insert(disclosures).values(row);
}
