import { and, desc, eq, gt, lte, ne, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events } from "@/db/schema";
import { notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import type { Scope } from "@/server/schemas/scopes";
import { buildEnvelope, type EventEnvelope } from "@/server/webhook-transport/envelope";
import {
  EVENT_READ_SCOPES,
  familyOf,
  INTEGRATION_ADDRESSED,
  isEventType,
} from "@/server/webhook-transport/event-catalog";
import { ownedByOwner } from "../webhooks/owner";

/** How far back the journal reads (issue 75 item 1: the last 30 days, as the delivery journal), ms. */
export const EVENT_JOURNAL_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** Keyset position in the journal: (created_at, id) of the last event, walked newest first. */
export type EventPosition = [string, string];

/**
 * Who reads the journal: an integration in one tenant and mode, with its key's effective scopes. The
 * journal shows what this integration may receive by webhook, so the same rules decide (fan-out.ts).
 */
export interface EventReader {
  tenantId: string;
  /** The key's mode: true = live, false = the tenant's sandbox. */
  livemode: boolean;
  integrationId: string;
  scopes: readonly Scope[];
}

/**
 * What the reader may see of the events table, beyond its tenant and mode (as {@link fanOutEvent} decides
 * who receives an event):
 * - the last 30 days only, even before the retention job deletes older rows;
 * - no `webhook.test`: it is a check of one subscription, sent to it alone, not an event of the tenant
 *   (our choice, docs/webhooks.md "Catching up with the event journal"): another integration must not see
 *   it, and a receiver catching up has nothing to do with it;
 * - an integration-addressed type (`api_key.expiring`) only when addressed to the reader's integration;
 * - events about personal-data resources (`conversation.*`, `message.*`, `lead.*`, `contact.*`) only when
 *   the key holds a matching read scope.
 */
function visibleTo(reader: EventReader): SQL[] {
  const e = events;
  const conds: SQL[] = [
    ownedByOwner(e, reader),
    gt(e.createdAt, new Date(nowMs() - EVENT_JOURNAL_WINDOW_MS)),
    ne(e.type, "webhook.test"),
  ];
  for (const [type, field] of Object.entries(INTEGRATION_ADDRESSED))
    conds.push(or(ne(e.type, type), sql`${e.data}->>${field} = ${reader.integrationId}`)!);
  for (const [family, scopes] of Object.entries(EVENT_READ_SCOPES))
    if (!scopes.some((s) => reader.scopes.includes(s))) conds.push(sql`not starts_with(${e.type}, ${`${family}.`})`);
  return conds;
}

/** `type` filter: an exact type, or every type of a family for `<family>.*`. */
function typeCondition(pattern: string): SQL {
  if (isEventType(pattern)) return eq(events.type, pattern);
  return sql`starts_with(${events.type}, ${`${familyOf(pattern)}.`})`;
}

/**
 * `GET /events` (issue 75 item 1): the events of the reader's tenant and mode of the last 30 days that it
 * may see (see {@link visibleTo}), newest first by (created_at, id), strictly after `after`; `type` an exact
 * type or `<family>.*` (already checked against the catalog), `createdAfter` strictly later events only.
 * Each as the thin envelope its deliveries carry (never personal data).
 */
export async function listEvents(
  db: Db,
  reader: EventReader,
  q: { limit: number; type?: string; createdAfter?: Date; after?: EventPosition },
): Promise<{ events: EventEnvelope[]; next: EventPosition | null }> {
  const e = events;
  const conds = visibleTo(reader);
  if (q.type) conds.push(typeCondition(q.type));
  if (q.createdAfter) conds.push(gt(e.createdAt, q.createdAfter));
  if (q.after)
    conds.push(
      // The bound on created_at alone lets the scan of events_tenant_idx start at the position; the row
      // comparison then breaks ties of one millisecond by id.
      lte(e.createdAt, new Date(q.after[0])),
      sql`(${e.createdAt}, ${e.id}) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`,
    );
  const rows = await db
    .select()
    .from(e)
    .where(and(...conds))
    .orderBy(desc(e.createdAt), desc(e.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    events: page.map(buildEnvelope),
    next: rows.length > q.limit && last ? [last.createdAt.toISOString(), last.id] : null,
  };
}

/**
 * `GET /events/{id}`: one event as its deliveries carry it (thin).
 * @throws ApiError 404 `not_found` when missing, of another tenant or mode, older than 30 days, or not
 *   visible to the reader (a `webhook.test`, another integration's `api_key.expiring`, a personal-data
 *   event without the read scope).
 */
export async function getEvent(db: Db, reader: EventReader, id: string): Promise<EventEnvelope> {
  const [row] = await db
    .select()
    .from(events)
    .where(and(...visibleTo(reader), eq(events.id, id)));
  if (!row) throw notFound("Event");
  return buildEnvelope(row);
}
