import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { analyticsVisitorDays, intakeEventIds, intakeEvents, usageDaily } from "@/db/schema";
import { runRetention } from "@/server/jobs/retention";
import { setClock } from "@/server/lib/clock";
import { makeTenant } from "@/server/testing/fixtures";
import { readRollups, recountFromRaw, rollUpAll } from "@/server/testing/intake-rollups";
import { openTestDatabase } from "@/server/testing/test-db";
import { ensurePartitions } from "../intake/partitions";
import { prng, type Prng } from "../seed/prng";
import { rollupIntake } from "./rollup";

// Issue 74 item 4: the rollups equal a recount from the raw events after a fuzzed burst of inserts by
// concurrent transactions (on PostgreSQL really concurrent: 8 connections whose transactions hold their xid
// while others commit, some rolled back, with rollup runs, two at a time, in between); a second run adds
// nothing; raw events leave by whole partitions after 90 days and the rollups stay. PGlite, and PostgreSQL
// with DATABASE_URL.

const DAY = 86_400_000;
const T0 = Date.now();
let db: Awaited<ReturnType<typeof openTestDatabase>>;
/** A second handle with room for 8 writers and the rollup runs (the test database's pool holds 5). */
let wide: { db: Db; close(): Promise<void> };
const tenantIds: string[] = [];

const TYPES = ["page_view", "page_view", "page_view", "form_submit", "signup", "purchase", "conversion", "custom:quiz"];
const SOURCES: [string | null, string | null][] = [
  ["google", "search"],
  ["yandex", "search"],
  ["chatgpt", "ai_assistant"],
  ["direct", "direct"],
  ["social", "social"],
  [null, null],
];

/** One random raw event of `tenantId`, received within the last 3 days and occurred within the last 10. */
function randomEvent(r: Prng, tenantId: string): typeof intakeEvents.$inferInsert {
  const type = TYPES[r.int(TYPES.length)]!;
  const [source, kind] = SOURCES[r.int(SOURCES.length)]!;
  const receivedAt = new Date(T0 - r.int(3 * DAY));
  const money = type === "purchase" || type === "conversion";
  const status = r.next() < 0.85 ? "accepted" : r.next() < 0.5 ? "duplicate" : "rejected";
  return {
    receivedAt,
    tenantId,
    livemode: r.next() < 0.7,
    eventId: `e-${r.int(1e9)}`,
    status,
    type,
    occurredAt: new Date(receivedAt.getTime() - r.int(7 * DAY)),
    source,
    kind,
    sessionStart: type === "page_view" && r.next() < 0.4,
    visitorKey: r.next() < 0.9 ? `v${r.int(12)}` : null,
    pagePath: type === "page_view" ? `/p/${r.int(6)}` : null,
    pageTitle: type === "page_view" && r.next() < 0.8 ? `Page ${r.int(3)}` : null,
    valueMinor: money ? BigInt(r.int(500_000)) : null,
    currency: money ? "RUB" : null,
    leadEffect:
      type === "form_submit" || type === "signup"
        ? r.next() < 0.6
          ? "lead_created"
          : null
        : money && r.next() < 0.5
          ? "lead_won"
          : null,
  };
}

beforeAll(async () => {
  db = await openTestDatabase();
  wide = db.url ? await openDatabase({ url: db.url, poolSize: 12 }) : { db: db.db, close: async () => {} };
  for (let i = 0; i < 3; i++) tenantIds.push((await makeTenant(db.db)).tenantId);
  await ensurePartitions(
    db.db,
    Array.from({ length: 4 }, (_, i) => T0 - i * DAY),
  );
});
afterAll(async () => {
  setClock(undefined);
  await wide?.close();
  await db.drop();
});

/**
 * PostgreSQL: a transaction that took its xid first commits last, after a younger one and after a rollup
 * run in between: the run must leave the younger one's rows for later (a watermark past the older one's
 * xid would skip its rows for good). @returns the events that run added.
 */
async function outOfOrderCommit(r: Prng): Promise<number> {
  const tenantId = tenantIds[0]!;
  let release!: () => void;
  const held = new Promise<void>((res) => (release = res));
  let started!: () => void;
  const inserted = new Promise<void>((res) => (started = res));
  const older = wide.db.transaction(async (t) => {
    await t
      .insert(intakeEvents)
      .values([randomEvent(r, tenantId), { ...randomEvent(r, tenantId), status: "accepted" }]);
    started();
    await held;
  });
  await inserted;
  await wide.db.insert(intakeEvents).values({ ...randomEvent(r, tenantId), status: "accepted" });
  const between = await rollupIntake(wide.db);
  release();
  await older;
  return between.events;
}

describe("rollupIntake", () => {
  it("equals a recount from raw events after a fuzzed burst of concurrent transactions, and a second run adds nothing", async () => {
    const r = prng(74);
    const onPostgres = db.kind === "postgres";
    let writing = true;
    let rolled = 0;
    // Rollup runs while the writers write, two at a time: the state row's lock orders them.
    const roller = (async () => {
      while (writing) {
        const runs = await Promise.all([rollupIntake(wide.db), rollupIntake(wide.db)]);
        rolled += runs.reduce((n, x) => n + x.events, 0);
        await new Promise((res) => setTimeout(res, 1));
      }
    })();
    const writer = async (w: number) => {
      const wr = prng(1000 + w);
      for (let tx = 0; tx < 12; tx++) {
        const tenantId = tenantIds[wr.int(tenantIds.length)]!;
        const rows = Array.from({ length: 3 + wr.int(15) }, () => randomEvent(wr, tenantId));
        const abort = wr.next() < 0.15;
        await wide.db
          .transaction(async (t) => {
            // The first insert takes the transaction's xid; a pause lets later transactions commit first.
            await t.insert(intakeEvents).values(rows.slice(0, 2));
            if (onPostgres) await t.execute(sql`select pg_sleep(${wr.int(20) / 1000})`);
            await t.insert(intakeEvents).values(rows.slice(2));
            if (abort) throw new Error("rolled back on purpose");
          })
          .catch((e: Error) => {
            if (e.message !== "rolled back on purpose") throw e;
          });
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    if (onPostgres) {
      const between = await outOfOrderCommit(r); // not `rolled += await`: the roller adds meanwhile
      rolled += between;
    }
    writing = false;
    await roller;
    // The rest: on a server shared with other test databases, their transactions may hold a run back.
    const last = await rollUpAll(db.db);
    const raw = await recountFromRaw(db.db);
    const accepted = Object.values(raw.daily).reduce((n, d) => n + d.events, 0);
    expect(accepted).toBeGreaterThan(400);
    // Runs during the burst and the final ones added every accepted event exactly once.
    expect(rolled + last).toBe(accepted);
    const rollups = await readRollups(db.db);
    expect(rollups).toEqual(raw);
    expect(Object.keys(raw.daily).some((k) => k.includes("|false|"))).toBe(true);
    expect(Object.keys(raw.daily).some((k) => k.endsWith("|other"))).toBe(true);
    expect(Object.keys(raw.visitorsByDay).length).toBeGreaterThan(10);

    const again = await rollupIntake(db.db);
    expect(again).toMatchObject({ events: 0, dailyRows: 0, pageRows: 0, visitors: 0 });
    expect(await readRollups(db.db)).toEqual(rollups);
  });

  it("keeps the rollups when raw events leave by whole partitions after 90 days, and cleans the intake tables", async () => {
    const before = await readRollups(db.db);
    const tenantId = tenantIds[0]!;
    const old = (days: number) => new Date(T0 - days * DAY);
    await db.db.insert(intakeEventIds).values([
      { tenantId, eventId: "old-id", receivedAt: old(8) },
      { tenantId, eventId: "young-id", receivedAt: old(6) },
    ]);
    const today = new Date(T0).toISOString().slice(0, 10);
    await db.db.insert(usageDaily).values([
      {
        tenantId,
        day: old(40).toISOString().slice(0, 10),
        integrationId: crypto.randomUUID(),
        statusClass: 2,
        requests: 3,
      },
      { tenantId, day: today, integrationId: crypto.randomUUID(), statusClass: 2, requests: 4 },
    ]);
    const partitions = async () =>
      rowsOf<{ name: string }>(
        await db.db.execute(sql`
          select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
          join pg_class p on p.oid = i.inhparent where p.relname = 'intake_events' order by 1`),
      ).map((x) => x.name);
    const held = await partitions();
    expect(held.length).toBeGreaterThanOrEqual(4);
    const rawCount = async () =>
      Number(rowsOf<{ n: number }>(await db.db.execute(sql`select count(*)::int as n from ${intakeEvents}`))[0]!.n);
    expect(await rawCount()).toBeGreaterThan(0);

    // Now: only the 8-day event id and the 40-day usage day are old enough; 95 days on, every partition of
    // the burst (received up to 3 days back) is, and every visitor day (events occurred up to 10 days back).
    setClock(() => T0);
    expect(await runRetention(db.db)).toMatchObject({
      intakePartitions: 0,
      intakeEventIds: 1,
      visitorDays: 0,
      usageDays: 1,
    });
    expect((await db.db.select().from(intakeEventIds)).map((x) => x.eventId)).toEqual(["young-id"]);
    setClock(() => T0 + 95 * DAY);
    const r = await runRetention(db.db);
    expect(r).toMatchObject({ intakeEventIds: 1, usageDays: 1 });
    expect(r.intakePartitions).toBe(held.length);
    expect(r.visitorDays).toBeGreaterThan(0);
    expect(await partitions()).toEqual([]);
    for (const name of held)
      expect(
        rowsOf<{ t: string | null }>(await db.db.execute(sql`select to_regclass(${name})::text as t`))[0]!.t,
      ).toBeNull();
    expect(await rawCount()).toBe(0);
    expect(await db.db.select().from(analyticsVisitorDays)).toEqual([]);
    expect(await readRollups(db.db)).toEqual(before);
    expect((await rollupIntake(db.db)).events).toBe(0);
  });
});
