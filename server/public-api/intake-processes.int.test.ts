import type { ChildProcess } from "node:child_process";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { intakeEventIds, intakeEvents } from "@/db/schema";
import { setPreview } from "@/server/services/tenants/previews";
import { killProcess, startApiProcess } from "@/server/testing/child-process";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Issue 74 item 1, dedup across processes: two app processes on one PostgreSQL database get the same 100
// event ids at once, in eight batches (four each, every one in another order): exactly 100 are accepted in
// all, the rest answered `duplicate`, and no batch fails (ids are claimed in one sorted order, so two
// batches never wait on each other in a circle). Needs PostgreSQL: PGlite is one process's database.

const pg = Boolean(process.env.DATABASE_URL);
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let ports: number[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!pg) return;
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "event-intake", true);
  const started = await Promise.all([startApiProcess(db.url!), startApiProcess(db.url!)]);
  children.push(...started.map((s) => s.child));
  ports = started.map((s) => s.port);
}, 120_000);
afterAll(async () => {
  await Promise.all(children.map((c) => killProcess(c)));
  await db?.drop();
});

/** The ids in a shuffled order (a seeded rotation and reversal, so every batch differs). */
const order = (ids: string[], k: number) => {
  const r = [...ids.slice(k * 13), ...ids.slice(0, k * 13)];
  return k % 2 ? r.reverse() : r;
};

it.skipIf(!pg)(
  "accepts each of 100 ids sent at once to two processes exactly once",
  async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `race-${i}`);
    const occurred = new Date().toISOString();
    const batches = Array.from({ length: 8 }, (_, k) => ({
      port: ports[k % 2]!,
      events: order(ids, k).map((id) => ({ event_id: id, type: "page_view", occurred_at: occurred })),
    }));
    const answers = await Promise.all(
      batches.map(async ({ port, events }) => {
        const r = await fetch(`http://127.0.0.1:${port}/api/public/v1/intake/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
          body: JSON.stringify({ events }),
        });
        return { status: r.status, body: (await r.json()) as { results: { event_id: string; status: string }[] } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const accepted = answers.flatMap((a) =>
      a.body.results.filter((x) => x.status === "accepted").map((x) => x.event_id),
    );
    expect(accepted.sort()).toEqual([...ids].sort());
    const statuses = answers.flatMap((a) => a.body.results.map((x) => x.status));
    expect(statuses.filter((s) => s === "duplicate")).toHaveLength(700);
    const [rows] = await db.db
      .select({ n: sql<number>`count(*)::int` })
      .from(intakeEvents)
      .where(and(eq(intakeEvents.tenantId, t.tenantId), eq(intakeEvents.status, "accepted")));
    expect(rows!.n).toBe(100);
    const held = await db.db.select().from(intakeEventIds).where(eq(intakeEventIds.tenantId, t.tenantId));
    expect(held).toHaveLength(100);
  },
  60_000,
);
