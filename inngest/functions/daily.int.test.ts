import { InngestTestEngine } from "@inngest/test";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsDaily, events, idempotencyRecords, intakeEvents, tenants } from "@/db/schema";
import { ensurePartitions, partitionName } from "@/server/services/intake/partitions";
import { untilFinal } from "@/server/testing/intake-rollups";
import { rowsOf } from "@/db/rows";
import { setClock } from "@/server/lib/clock";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { intakeRollup } from "./intake-rollup";
import { keyExpiryNotices } from "./key-expiry";
import { retentionCleanup } from "./retention";
import { strategistReportsDaily } from "./strategist-reports";

// The daily cron functions of the Inngest door, run with @inngest/test: their single step runs for real
// against the test database, so these prove the functions call the same services as the local schedule.

const DAY = 24 * 60 * 60 * 1000;
const T0 = Math.floor(Date.now() / 1000) * 1000;

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  setClock(() => T0);
  t = await makeTenant(db.db, { key: { expiresAt: new Date(T0 + 20 * DAY) } });
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

describe("key-expiry-notices", () => {
  it("records the due api_key.expiring event in its step, and nothing on a repeated run", async () => {
    const first = await new InngestTestEngine({ function: keyExpiryNotices }).execute();
    expect(first.result).toEqual({ notices: 1 });
    const evs = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "api_key.expiring")));
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toMatchObject({ key_id: t.keyId, integration_id: t.integrationId, days_left: 20 });
    const again = await new InngestTestEngine({ function: keyExpiryNotices }).execute();
    expect(again.result).toEqual({ notices: 0 });
  });
});

describe("retention-cleanup", () => {
  it("deletes expired idempotency records in its step and returns the counts", async () => {
    const mk = async (ageMs: number) =>
      (
        await db.db
          .insert(idempotencyRecords)
          .values({
            tenantId: t.tenantId,
            keyMode: "live",
            scope: "POST /v1/cards",
            idempotencyKey: crypto.randomUUID(),
            fingerprint: "f",
            lockedUntil: new Date(T0),
            createdAt: new Date(T0 - ageMs),
          })
          .returning({ id: idempotencyRecords.id })
      )[0]!.id;
    const old = await mk(2 * DAY);
    const young = await mk(DAY / 2);
    const { result } = await new InngestTestEngine({ function: retentionCleanup }).execute();
    // Its second step creates intake's partitions for today and the next two days.
    const made = await db.db.execute(
      sql`select count(*)::int as n from pg_class where relname in (${sql.join(
        [0, 1, 2].map((d) => sql`${partitionName(T0 + d * DAY)}`),
        sql`, `,
      )})`,
    );
    expect(rowsOf<{ n: number }>(made)[0]!.n).toBe(3);
    expect(result).toMatchObject({ webhookDeliveries: 0, events: 0, idempotencyRecords: 1, requestLog: 0 });
    const left = (await db.db.select({ id: idempotencyRecords.id }).from(idempotencyRecords)).map((r) => r.id);
    expect(left).toContain(young);
    expect(left).not.toContain(old);
  });
});

describe("intake-rollup", () => {
  it("adds new intake events to the daily rollups in its step, and nothing on a repeated run", async () => {
    await ensurePartitions(db.db, [T0]);
    await db.db.insert(intakeEvents).values({
      receivedAt: new Date(T0),
      tenantId: t.tenantId,
      status: "accepted",
      type: "page_view",
      occurredAt: new Date(T0),
      source: "google",
      kind: "search",
      sessionStart: true,
      visitorKey: "v1",
      pagePath: "/",
    });
    await untilFinal(db.db);
    const first = await new InngestTestEngine({ function: intakeRollup }).execute();
    expect(first.result).toMatchObject({ events: 1, dailyRows: 1, pageRows: 1, visitors: 1 });
    const rows = await db.db.select().from(analyticsDaily).where(eq(analyticsDaily.tenantId, t.tenantId));
    expect(rows).toMatchObject([
      { source: "google", kind: "search", pageviews: 1, sessions: 1, visitors: 1, events: 1 },
    ]);
    const again = await new InngestTestEngine({ function: intakeRollup }).execute();
    expect(again.result).toMatchObject({ events: 0 });
  });
});

describe("strategist-reports", () => {
  it("writes the daily report (and a weekly one on Mondays) of a preview tenant in its step, once", async () => {
    await db.db
      .update(tenants)
      .set({ previews: ["strategist"] })
      .where(eq(tenants.id, t.tenantId));
    const { result } = await new InngestTestEngine({ function: strategistReportsDaily }).execute();
    const reports = new Date(T0).getUTCDay() === 1 ? 2 : 1;
    expect(result).toMatchObject({ reports });
    const evs = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "strategist.report.ready")));
    expect(evs).toHaveLength(reports);
    const again = await new InngestTestEngine({ function: strategistReportsDaily }).execute();
    expect(again.result).toMatchObject({ reports: 0 });
  });
});
