import { TRPCError } from "@trpc/server";
import { and, gt, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, requestLog, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { flushRequestLog } from "@/server/services/request-log/writer";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { createCaller } from "./root";

// The console's request log and usage charts (issue 19 items 5 and 6): any member of the tenant reads
// them; filters, keyset pages, and nobody sees another tenant's requests.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
let second: TenantFixture; // another tenant: its integration is not one of t's
let member: { id: string; email: string; name: string };
let outsider: { id: string; email: string; name: string };
const ids: Record<string, string> = {};

const as = (s: { id: string; email: string; name: string }) => createCaller({ db: db.db, staff: s });
const DAY = 86_400_000;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  second = await makeTenant(db.db);
  member = { id: await makeStaff(db.db, t.tenantId, []), email: "m@x.example", name: "M" };
  outsider = { id: await makeStaff(db.db, other.tenantId, []), email: "o@x.example", name: "O" };
  const go = async (name: string, method: string, path: string, key: string | null) => {
    const r = await call(method, path, { key, validate: false });
    ids[name] = r.headers.get("x-request-id")!;
    return r;
  };
  expect((await go("me", "GET", "/me", t.key)).status).toBe(200);
  expect((await go("cards", "GET", "/cards?limit=1", t.key)).status).toBe(200);
  expect((await go("card", "GET", "/cards/nope", t.key)).status).toBe(404);
  expect((await go("bad", "GET", "/cards?limit=0", t.key)).status).toBe(422);
  expect((await go("anon", "GET", "/me", null)).status).toBe(401);
  expect((await go("otherMe", "GET", "/me", other.key)).status).toBe(200);
  await flushRequestLog();
});
afterAll(async () => db.drop());

describe("requestLog.list", () => {
  it("shows any member the tenant's requests newest first, with integration, key, status and code", async () => {
    const page = await as(member).requestLog.list({ tenantId: t.tenantId });
    expect(page.rows.map((r) => r.requestId)).toEqual([ids.bad, ids.card, ids.cards, ids.me]);
    expect(page.rows[1]).toMatchObject({
      integrationId: t.integrationId,
      integrationName: "Test integration",
      keyId: t.keyId,
      method: "GET",
      path: "/cards/nope",
      status: 404,
      problemCode: "not_found",
      callerAddress: "127.0.0.1",
    });
    expect(page.next).toBeNull();
  });

  it("filters by status class, path prefix or text, request id and integration", async () => {
    const list = (filters: object) =>
      as(member)
        .requestLog.list({ tenantId: t.tenantId, filters })
        .then((p) => p.rows.map((r) => r.requestId));
    expect(await list({ statusClass: "2xx" })).toEqual([ids.cards, ids.me]);
    expect(await list({ statusClass: "4xx" })).toEqual([ids.bad, ids.card]);
    expect(await list({ statusClass: "5xx" })).toEqual([]);
    expect(await list({ path: "/cards" })).toEqual([ids.bad, ids.card, ids.cards]);
    expect(await list({ path: "/car" })).toEqual([ids.bad, ids.card, ids.cards]); // a prefix
    expect(await list({ path: "nope" })).toEqual([ids.card]); // text anywhere
    expect(await list({ path: "%" })).toEqual([]); // LIKE wildcards match only themselves
    expect(await list({ requestId: ids.me })).toEqual([ids.me]);
    expect(await list({ integrationId: t.integrationId, statusClass: "2xx" })).toEqual([ids.cards, ids.me]);
    expect(await list({ integrationId: second.integrationId })).toEqual([]);
  });

  it("pages by keyset without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor: { createdAt: string; id: number } | null = null;
    for (let i = 0; i < 5; i++) {
      const p: Awaited<ReturnType<ReturnType<typeof as>["requestLog"]["list"]>> = await as(member).requestLog.list({
        tenantId: t.tenantId,
        limit: 1,
        cursor,
      });
      seen.push(...p.rows.map((r) => r.requestId));
      cursor = p.next;
      if (!cursor) break;
    }
    expect(seen).toEqual([ids.bad, ids.card, ids.cards, ids.me]);
  });

  it("never shows another tenant's requests, or ones refused before a key was verified", async () => {
    const mine = await as(outsider).requestLog.list({ tenantId: other.tenantId });
    expect(mine.rows.map((r) => r.requestId)).toEqual([ids.otherMe]);
    const anon = await as(member).requestLog.list({ tenantId: t.tenantId, filters: { requestId: ids.anon } });
    expect(anon.rows).toEqual([]);
    const err = await as(outsider)
      .requestLog.list({ tenantId: t.tenantId })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect((err as TRPCError).code).toBe("NOT_FOUND");
  });

  it("hides rows past the 30-day retention even before the daily job deletes them", async () => {
    await db.db.insert(requestLog).values({
      createdAt: new Date(Date.now() - 31 * DAY),
      tenantId: t.tenantId,
      method: "GET",
      path: "/me",
      status: 200,
      latencyMs: 1,
      requestId: "req_too_old",
    });
    const p = await as(member).requestLog.list({ tenantId: t.tenantId, filters: { requestId: "req_too_old" } });
    expect(p.rows).toEqual([]);
  });
});

describe("usage.summary", () => {
  it("charts 30 UTC days of requests by status class and integration, spend in RUB and deliveries by state", async () => {
    // The requests were logged in beforeAll, minutes before this test on a slow machine: a run that
    // crosses UTC midnight would chart them on yesterday. Bring them to this moment, as the other rows
    // below are written now. (Not the row the retention test put 31 days back.)
    await db.db
      .update(requestLog)
      .set({ createdAt: new Date() })
      .where(
        and(
          inArray(requestLog.tenantId, [t.tenantId, other.tenantId]),
          gt(requestLog.createdAt, new Date(Date.now() - DAY)),
        ),
      );
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -1_250n, kind: "debit", actor: "system" });
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 5_000n, kind: "credit", actor: "system" });
    const [sub] = await db.db
      .insert(webhookSubscriptions)
      .values({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        url: "https://hooks.example.com/in",
        events: ["lead.*"],
        secretEnc: sealSecret(newSigningSecret()),
      })
      .returning();
    const [ev] = await db.db
      .insert(events)
      .values({ tenantId: t.tenantId, type: "lead.created", data: { lead_id: crypto.randomUUID(), version: 1 } })
      .returning();
    for (const state of ["delivered", "delivered", "failed", "dead", "pending"])
      await db.db.insert(webhookDeliveries).values({
        tenantId: t.tenantId,
        subscriptionId: sub!.id,
        eventId: ev!.id,
        eventType: "lead.created",
        state,
      });

    const u = await as(member).usage.summary({ tenantId: t.tenantId });
    const today = new Date().toISOString().slice(0, 10);
    expect(u.days).toHaveLength(30);
    expect(u.days.at(-1)).toBe(today);
    expect(u.days[0]).toBe(new Date(Date.now() - 29 * DAY).toISOString().slice(0, 10));
    const day = u.requests.at(-1)!;
    expect(day).toMatchObject({ day: today, "2xx": 2, "4xx": 2, "5xx": 0 });
    expect(day.byIntegration).toEqual({ [t.integrationId]: 4 });
    expect(u.requests.slice(0, -1).every((d) => d["2xx"] + d["4xx"] + d["5xx"] === 0)).toBe(true);
    expect(u.integrations).toEqual([{ id: t.integrationId, name: "Test integration" }]);
    expect(u.spend.at(-1)).toEqual({ day: today, minor: "1250", rub: "12.50" });
    expect(u.spend[0]).toMatchObject({ minor: "0", rub: "0.00" });
    expect(u.deliveries.at(-1)).toEqual({ day: today, delivered: 2, failed: 1, dead: 1 });
    // Another tenant's member sees only their own.
    const theirs = await as(outsider).usage.summary({ tenantId: other.tenantId });
    expect(theirs.requests.at(-1)).toMatchObject({ "2xx": 1, "4xx": 0 });
    expect(theirs.spend.at(-1)!.minor).toBe("0");
    expect(theirs.deliveries.at(-1)).toEqual({ day: today, delivered: 0, failed: 0, dead: 0 });
  });
});
