import { stringify } from "csv-stringify/sync";
import { and, desc, eq, gte, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, disclosures, integrations } from "@/db/schema";
import { ApiError } from "@/server/errors";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";

/** Filters of the journal as staff set them; every one optional. `from`/`to` are ISO dates (UTC days). */
export interface JournalFilters {
  integrationId?: string;
  resourceType?: string;
  /** First UTC day included, `YYYY-MM-DD`. */
  from?: string;
  /** Last UTC day included, `YYYY-MM-DD`. */
  to?: string;
  requestId?: string;
}

/** One journal row as the console shows it and the CSV export writes it. */
export interface JournalEntry {
  id: string;
  createdAt: string;
  integrationId: string;
  integrationName: string;
  /** Public `key_id` of the key that received the data; null for webhook deliveries. */
  keyId: string | null;
  route: string;
  resourceType: string;
  resourceIds: string[];
  requestId: string;
}

/** Keyset position of a page: the last row's (created_at, id). */
export interface JournalCursor {
  createdAt: string;
  id: string;
}

/** The most rows one CSV export holds; narrow the filters for more. */
export const JOURNAL_EXPORT_MAX_ROWS = 10_000;

/**
 * The disclosure journal (spec general fact 6) is for staff with `view_personal_data` only: it says who
 * received which person's records.
 * @throws ApiError 403 `scope_missing` without the right (the console's door checks it first).
 */
function assertMayRead(actor: StaffActor): void {
  if (!actor.rights.includes("view_personal_data"))
    throw new ApiError("scope_missing", 'The disclosure journal needs the "view_personal_data" right in this tenant.');
}

function conditions(actor: StaffActor, f: JournalFilters, after: JournalCursor | null): SQL {
  const day = (d: string) => new Date(`${d}T00:00:00.000Z`);
  const parts: (SQL | undefined)[] = [
    // The console's mode: in Test mode only the sandbox's disclosures, else only live ones.
    ownedBy(disclosures, actor),
    f.integrationId ? eq(disclosures.integrationId, f.integrationId) : undefined,
    f.resourceType ? eq(disclosures.resourceType, f.resourceType) : undefined,
    f.requestId ? eq(disclosures.requestId, f.requestId.trim()) : undefined,
    f.from ? gte(disclosures.createdAt, day(f.from)) : undefined,
    f.to ? lt(disclosures.createdAt, new Date(day(f.to).getTime() + 86_400_000)) : undefined,
    after
      ? or(
          lt(disclosures.createdAt, new Date(after.createdAt)),
          and(eq(disclosures.createdAt, new Date(after.createdAt)), lt(disclosures.id, after.id)),
        )
      : undefined,
  ];
  return and(...parts)!;
}

async function rows(db: Db, actor: StaffActor, f: JournalFilters, after: JournalCursor | null, limit: number) {
  const found = await db
    .select({
      id: disclosures.id,
      createdAt: disclosures.createdAt,
      integrationId: disclosures.integrationId,
      integrationName: integrations.name,
      keyId: apiKeys.keyId,
      route: disclosures.route,
      resourceType: disclosures.resourceType,
      resourceIds: disclosures.resourceIds,
      requestId: disclosures.requestId,
    })
    .from(disclosures)
    .innerJoin(integrations, eq(integrations.id, disclosures.integrationId))
    .leftJoin(apiKeys, eq(apiKeys.id, disclosures.apiKeyId))
    .where(conditions(actor, f, after))
    .orderBy(desc(disclosures.createdAt), desc(disclosures.id))
    .limit(limit);
  return found.map((r): JournalEntry => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

/** A cell that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, tab, CR) gets a leading `'`. */
export function spreadsheetSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * A page of the tenant's disclosure journal in the actor's mode (tenant-scope.ts), newest first, keyset on
 * (created_at, id).
 * @param limit rows per page (1–200)
 * @param after the previous page's `next`, or null for the first page
 * @throws ApiError 403 `scope_missing` without `view_personal_data`
 */
export async function journalPage(
  db: Db,
  actor: StaffActor,
  filters: JournalFilters,
  limit: number,
  after: JournalCursor | null,
): Promise<{ entries: JournalEntry[]; next: JournalCursor | null }> {
  assertMayRead(actor);
  const found = await rows(db, actor, filters, after, limit + 1);
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return { entries: page, next: found.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

/**
 * The journal of the actor's mode under `filters` as CSV (RFC 4180, header row, newest first, at most
 * {@link JOURNAL_EXPORT_MAX_ROWS} rows; `truncated` says when more matched). Resource ids are joined by
 * spaces in one cell. The integration's name is the only text staff wrote; it is kept from being read
 * as a spreadsheet formula (OWASP "CSV injection").
 * @throws ApiError 403 `scope_missing` without `view_personal_data`
 */
export async function journalCsv(
  db: Db,
  actor: StaffActor,
  filters: JournalFilters,
): Promise<{ csv: string; rows: number; truncated: boolean }> {
  assertMayRead(actor);
  const found = await rows(db, actor, filters, null, JOURNAL_EXPORT_MAX_ROWS + 1);
  const kept = found.slice(0, JOURNAL_EXPORT_MAX_ROWS);
  const csv = stringify(
    kept.map((e) => [
      e.createdAt,
      e.integrationId,
      spreadsheetSafe(e.integrationName),
      e.keyId ?? "",
      e.route,
      e.resourceType,
      e.resourceIds.join(" "),
      e.requestId,
    ]),
    {
      header: true,
      columns: [
        "time",
        "integration_id",
        "integration",
        "key_id",
        "route",
        "resource_type",
        "resource_ids",
        "request_id",
      ],
    },
  );
  return { csv, rows: kept.length, truncated: found.length > JOURNAL_EXPORT_MAX_ROWS };
}
