import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";

const DAY_MS = 86_400_000;

/** Days a raw intake event is kept (issue 74 item 4): its day's partition is dropped after that. */
export const INTAKE_RETENTION_DAYS = 90;

/** Name of the partition of `intake_events` holding a UTC day: `intake_events_pYYYYMMDD`. */
export function partitionName(dayMs: number): string {
  return `intake_events_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** The UTC midnight (ms) of a moment (ms). */
export const utcDayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** Per database handle: days (UTC midnights, ms) whose partitions this process has seen exist; saves a catalog query per batch. */
const knownByDb = new WeakMap<Db, Set<number>>();
const knownOf = (db: Db): Set<number> => {
  let s = knownByDb.get(db);
  if (!s) knownByDb.set(db, (s = new Set()));
  return s;
};

/**
 * Makes sure the partitions of `intake_events` for the UTC days of `moments` (ms) exist, creating the
 * missing ones (`CREATE TABLE … PARTITION OF … FOR VALUES FROM (day) TO (day + 1)`). Creation runs under a
 * transaction-scoped advisory lock, so two processes never race on the catalog; a partition seen once is
 * remembered by this process. Called with the intake's receive time before its insert (a fake clock's
 * day too) and ahead of time by the daily schedule ({@link ensureUpcomingPartitions}).
 */
export async function ensurePartitions(db: Db, moments: number[]): Promise<void> {
  const known = knownOf(db);
  const days = [...new Set(moments.map(utcDayStart))].filter((d) => !known.has(d));
  if (days.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('intake_events partitions'))`);
    for (const day of days) {
      const name = partitionName(day);
      const from = new Date(day).toISOString();
      const to = new Date(day + DAY_MS).toISOString();
      await tx.execute(
        sql.raw(
          `create table if not exists "${name}" partition of "intake_events" for values from ('${from}') to ('${to}')`,
        ),
      );
    }
  });
  for (const d of days) known.add(d);
}

/** Creates today's and the next two days' partitions (UTC), so the intake path rarely creates one. */
export async function ensureUpcomingPartitions(db: Db, atMs: number): Promise<void> {
  const today = utcDayStart(atMs);
  await ensurePartitions(db, [today, today + DAY_MS, today + 2 * DAY_MS]);
}

/**
 * Drops every partition of `intake_events` whose whole day is older than {@link INTAKE_RETENTION_DAYS}
 * days before `atMs` (never a row delete: issue 74 item 4). @returns the dropped partitions' names.
 */
export async function dropExpiredPartitions(db: Db, atMs: number): Promise<string[]> {
  const cutoff = utcDayStart(atMs) - INTAKE_RETENTION_DAYS * DAY_MS;
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`
      select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent
      where p.relname = 'intake_events'`),
  );
  const dropped: string[] = [];
  for (const { name } of rows) {
    const m = /^intake_events_p(\d{4})(\d{2})(\d{2})$/.exec(name);
    if (!m) continue;
    const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (day + DAY_MS <= cutoff) {
      await db.execute(sql.raw(`drop table if exists "${name}"`));
      knownOf(db).delete(day);
      dropped.push(name);
    }
  }
  return dropped.sort();
}
