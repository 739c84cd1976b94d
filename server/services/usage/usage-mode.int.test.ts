import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { events, requestLog, walletLedger, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import type { StaffActor } from "../actor";
import { RequestLogWriter } from "../request-log/writer";
import { usageSummary } from "./usage";

// Issue 69 "Console": usage charts and billing never count test requests; in the console's Test mode the
// sandbox's own usage is shown, and never a live row. Issue 74 item 4: the requests chart reads the daily
// counts the request-log writer keeps beside the log (usage_daily), and equals the log's own counts.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let s: SandboxTenantFixture;

const staff = (livemode?: boolean): StaffActor => ({
  via: "console",
  tenantId: s.tenantId,
  staffUserId: "staff-1",
  rights: [],
  ...(livemode === undefined ? {} : { livemode }),
});

const DAY = 86_400_000;

/**
 * Requests, spend and deliveries of one mode, today: `n` requests (200), a charge of `minor`, `n` delivered
 * deliveries. The requests go through the request-log writer, in two flushes (two batches add to a day's count).
 */
async function activity(livemode: boolean, n: number, minor: bigint): Promise<void> {
  const base = { tenantId: s.tenantId, livemode, integrationId: s.integrationId };
  const writer = new RequestLogWriter({ db: async () => db.db });
  for (let i = 0; i < n; i++) {
    writer.push({
      ...base,
      createdAt: new Date(),
      apiKeyId: null,
      keyId: null,
      method: "GET",
      path: "/articles",
      status: 200,
      problemCode: null,
      latencyMs: 1,
      requestId: `req_${livemode}_${i}`,
      callerAddress: null,
    });
    if (i === 0) await writer.flush();
  }
  await writer.flush();
  expect(writer.stats).toMatchObject({ written: n, failedFlushes: 0 });
  await db.db.insert(walletLedger).values({
    ...base,
    kind: "charge",
    amountMinor: -minor,
    balanceAfterMinor: 0n,
    actor: `integration:${s.integrationId}`,
  });
  const [sub] = await db.db
    .insert(webhookSubscriptions)
    .values({
      ...base,
      url: "https://hooks.example.com/in",
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning();
  const [ev] = await db.db
    .insert(events)
    .values({
      tenantId: s.tenantId,
      livemode,
      type: "lead.created",
      data: { lead_id: crypto.randomUUID(), version: 1 },
    })
    .returning();
  for (let i = 0; i < n; i++)
    await db.db.insert(webhookDeliveries).values({
      tenantId: s.tenantId,
      livemode,
      subscriptionId: sub!.id,
      eventId: ev!.id,
      eventType: "lead.created",
      state: "delivered",
    });
}

beforeAll(async () => {
  db = await openTestDatabase();
  s = await makeEmptySandboxTenant(db.db);
  await activity(true, 2, 1_250n);
  await activity(false, 5, 99_900n);
});
afterAll(async () => db.drop());

describe("usageSummary", () => {
  it("counts only live requests, spend and deliveries outside Test mode", async () => {
    for (const actor of [staff(), staff(true)]) {
      const u = await usageSummary(db.db, actor);
      expect(u.requests.at(-1)).toMatchObject({ "2xx": 2, byIntegration: { [s.integrationId]: 2 } });
      expect(u.spend.at(-1)).toMatchObject({ minor: "1250", rub: "12.50" });
      expect(u.deliveries.at(-1)).toMatchObject({ delivered: 2 });
    }
  });

  it("shows the sandbox's own usage in Test mode, without a live row", async () => {
    const u = await usageSummary(db.db, staff(false));
    expect(u.requests.at(-1)).toMatchObject({ "2xx": 5, byIntegration: { [s.integrationId]: 5 } });
    expect(u.spend.at(-1)).toMatchObject({ minor: "99900", rub: "999.00" });
    expect(u.deliveries.at(-1)).toMatchObject({ delivered: 5 });
  });
  it("charts exactly the request log's counts per day, status class and integration", async () => {
    // Older days and other classes, written through the writer as the pipeline writes them.
    const writer = new RequestLogWriter({ db: async () => db.db });
    for (let i = 0; i < 12; i++)
      writer.push({
        tenantId: s.tenantId,
        livemode: i % 3 !== 0,
        integrationId: s.integrationId,
        createdAt: new Date(Date.now() - (i % 4) * DAY),
        apiKeyId: null,
        keyId: null,
        method: "GET",
        path: "/leads",
        status: [200, 404, 429, 503][i % 4]!,
        problemCode: null,
        latencyMs: 1,
        requestId: `req_mix_${i}`,
        callerAddress: null,
      });
    await writer.flush();
    for (const livemode of [true, false]) {
      const logged = rowsOf<{ day: string; cls: number; n: number }>(
        await db.db.execute(sql`
          select to_char(${requestLog.createdAt} at time zone 'UTC', 'YYYY-MM-DD') as day,
                 (${requestLog.status} / 100)::int as cls, count(*)::int as n
          from ${requestLog} where ${requestLog.tenantId} = ${s.tenantId} and ${requestLog.livemode} = ${livemode}
          group by 1, 2`),
      );
      const expected: Record<string, number> = {};
      for (const r of logged) expected[`${r.day} ${r.cls}xx`] = Number(r.n);
      const charted: Record<string, number> = {};
      const u = await usageSummary(db.db, staff(livemode));
      for (const d of u.requests)
        for (const cls of ["2xx", "3xx", "4xx", "5xx"] as const) {
          if (d[cls]) charted[`${d.day} ${cls}`] = d[cls];
          expect(Object.values(d.byIntegration).reduce((a, b) => a + b, 0)).toBe(
            d["2xx"] + d["3xx"] + d["4xx"] + d["5xx"],
          );
        }
      expect(charted).toEqual(expected);
      expect(Object.keys(expected).length).toBeGreaterThan(2);
    }
  });
});
