import { and, count, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { products } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setWalletSource } from "@/server/services/wallet/wallet-state";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { call, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { defineRoute, ok } from "./define-route";
import { handlePublicRequest } from "./pipeline";
import { Router } from "./router";

// Protocol guarantees integrators build retries and sync jobs on (spec "Limits", "Wallet and exchange").

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let clock = Date.now();
const HOUR = 3600_000;

beforeAll(async () => {
  db = await openTestDatabase();
  setClock(() => clock);
});
afterEach(() => setWalletSource(undefined));
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

const cardCount = async (tenantId: string, code: string) =>
  (
    await db.db
      .select({ n: count() })
      .from(products)
      .where(and(eq(products.tenantId, tenantId), eq(products.code, code)))
  )[0].n;

describe("idempotency", () => {
  it("creates exactly one card from fifty parallel identical requests", async () => {
    const t = await makeTenant(db.db);
    await setLimitOverride(db.db, { keyId: t.keyId }, { writePerMin: 1000 });
    const key = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call("POST", "/cards", { key: t.key, json: { code: "fifty", name: "F" }, idempotencyKey: key }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    for (const a of answers.filter((a) => a.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.code).toBe("operation_in_progress");
      expect(a.headers.get("retry-after")).toBe("1");
    }
    expect(await cardCount(t.tenantId, "fifty")).toBe(1);
    // Once done, every repeat is a replay of the same card.
    const again = await call("POST", "/cards", { key: t.key, json: { code: "fifty", name: "F" }, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(created[0].body.id);
  });

  it("starts a new operation when the key is older than 24 hours", async () => {
    const t = await makeTenant(db.db);
    const key = crypto.randomUUID();
    clock = Date.now();
    expect(
      (await call("POST", "/cards", { key: t.key, json: { code: "day-1", name: "D" }, idempotencyKey: key })).status,
    ).toBe(201);
    clock += 24 * HOUR - 1000;
    const inWindow = await call("POST", "/cards", {
      key: t.key,
      json: { code: "day-2", name: "D" },
      idempotencyKey: key,
    });
    expect(inWindow.status).toBe(409);
    expect(inWindow.body.code).toBe("idempotency_conflict");
    clock += 2000;
    const after = await call("POST", "/cards", { key: t.key, json: { code: "day-2", name: "D" }, idempotencyKey: key });
    expect(after.status).toBe(201);
    expect(await cardCount(t.tenantId, "day-2")).toBe(1);
    clock = Date.now();
  });

  it("scopes keys by tenant and key mode", async () => {
    const a = await makeTenant(db.db);
    const b = await makeTenant(db.db);
    const test = await issueKey(db.db, { integrationId: a.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    const key = crypto.randomUUID();
    const r1 = await call("POST", "/cards", { key: a.key, json: { code: "scoped", name: "S" }, idempotencyKey: key });
    const r2 = await call("POST", "/cards", { key: b.key, json: { code: "scoped", name: "S" }, idempotencyKey: key });
    const r3 = await call("POST", "/cards", {
      key: test.key,
      json: { code: "scoped-test", name: "S" },
      idempotencyKey: key,
    });
    expect([r1.status, r2.status, r3.status]).toEqual([201, 201, 201]);
    expect(r2.body.id).not.toBe(r1.body.id);
  });
});

describe("cursors", () => {
  it("expire after 24 hours and are bound to the key mode", async () => {
    const t = await makeTenant(db.db);
    for (const code of ["a", "b"])
      await call("POST", "/cards", { key: t.key, json: { code, name: code }, idempotencyKey: crypto.randomUUID() });
    clock = Date.now();
    const first = await call("GET", "/cards?limit=1", { key: t.key });
    const cursor = encodeURIComponent(first.body.next_cursor);
    const test = await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    const otherMode = await call("GET", `/cards?limit=1&cursor=${cursor}`, { key: test.key });
    expect(otherMode.status).toBe(422);
    expect(otherMode.body.errors[0].field).toBe("/cursor");
    clock += 24 * HOUR - 1000;
    expect((await call("GET", `/cards?limit=1&cursor=${cursor}`, { key: t.key })).status).toBe(200);
    clock += 2000;
    const expired = await call("GET", `/cards?limit=1&cursor=${cursor}`, { key: t.key });
    expect(expired.status).toBe(422);
    expect(expired.body.errors[0].field).toBe("/cursor");
    clock = Date.now();
  });

  it("refuses a tampered cursor", async () => {
    const t = await makeTenant(db.db);
    for (const code of ["a", "b"])
      await call("POST", "/cards", { key: t.key, json: { code, name: code }, idempotencyKey: crypto.randomUUID() });
    const c: string = (await call("GET", "/cards?limit=1", { key: t.key })).body.next_cursor;
    const flipped = c.slice(0, 10) + (c[10] === "A" ? "B" : "A") + c.slice(11);
    const r = await call("GET", `/cards?limit=1&cursor=${encodeURIComponent(flipped)}`, { key: t.key });
    expect(r.status).toBe(422);
    expect(r.body.errors[0].field).toBe("/cursor");
  });
});

describe("wallet gate", () => {
  it("resumes exchange on the very next request after funds arrive", async () => {
    const t = await makeTenant(db.db, { balanceMinor: 0n });
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -500n, kind: "debit", actor: "system" });
    const r = await call("GET", "/cards", { key: t.key });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({
      code: "wallet_suspended",
      balance: { amount: "-5.00", currency: "RUB" },
      topup_url: `${TEST_ORIGIN}/console/wallet?tenant=${t.tenantId}`,
    });
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 100_000n, kind: "topup", actor: "system" });
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
  });

  it("closes paid operations with 503 upstream_unavailable while the wallet state is unknown, and keeps reads open", async () => {
    const t = await makeTenant(db.db);
    const paid = new Router([
      defineRoute({
        operationId: "paidThing",
        summary: "",
        method: "POST",
        path: "/paid",
        scope: null,
        rate: "paid",
        responses: {},
        handler: async () => ok({ done: true }),
      }),
      defineRoute({
        operationId: "readThing",
        summary: "",
        method: "GET",
        path: "/paid",
        scope: null,
        rate: "read",
        responses: {},
        handler: async () => ok({ read: true }),
      }),
    ]);
    const req = (method: string) =>
      new Request(`${TEST_ORIGIN}/api/public/v1/paid`, {
        method,
        headers: { authorization: `Bearer ${t.key}`, [PEER_HEADER]: "127.0.0.1" },
      });
    expect((await handlePublicRequest(req("POST"), paid)).status).toBe(200);
    setWalletSource({
      read: async () => {
        throw new Error("billing down");
      },
    });
    const p = await handlePublicRequest(req("POST"), paid);
    expect(p.status).toBe(503);
    expect((await p.json()).code).toBe("upstream_unavailable");
    expect(p.headers.get("retry-after")).toBeTruthy();
    const r = await handlePublicRequest(req("GET"), paid);
    expect(r.status).toBe(200);
    expect(r.headers.get("service-wallet-state")).toBe("unknown");
  });
});
