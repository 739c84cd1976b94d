import type { Db } from "@/db/client";
import { disclosures } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { log } from "@/server/log";

/**
 * One disclosure: who (`apiKeyId` the key's row id; null for webhook deliveries) received which personal
 * records (`resourceType` and ids) through which door (`route`, e.g. `GET /leads/{id}` or `webhook lead.created`).
 */
export interface DisclosureRow {
  tenantId: string;
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
 * @throws ApiError 503 `service_unavailable` when the row cannot be written: then no data may leave.
 */
export async function recordDisclosure(db: Db, row: DisclosureRow): Promise<void> {
  if (row.resourceIds.length === 0) return;
  const input = row;
  try {
    await writeDisclosureRow(db, row);
  } catch (err) {
    log().error({ request_id: input.requestId, err: (err as Error).message }, "disclosure journal write failed");
    throw new ApiError(
      "service_unavailable",
      "Personal data cannot be returned right now because its disclosure cannot be recorded; retry after a pause.",
      {},
      { "retry-after": "5" },
    );
  }
}

/**
 * One disclosure-journal row as is (db/schema/operations.ts `disclosures`): who received which personal
 * records through which door. `apiKeyId` is null for webhook deliveries. Throws what the insert throws.
 */
export async function writeDisclosureRow(db: Db, row: DisclosureRow): Promise<void> {
  await db.insert(disclosures).values(row);
}
