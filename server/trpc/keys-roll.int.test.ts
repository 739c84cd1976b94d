import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, rateLimitOverrides } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { runKeyExpiryNotices } from "@/server/jobs/key-expiry";
import { authenticate } from "@/server/services/access/authenticate";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// Keys have a name and can be rolled (issue 19 item 3): a new key with the same settings, the old one
// expiring after the chosen delay (now, 1h, 24h, 7d), with the rights of issuing a key.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const staff = (id: string) => ({ id, email: `${id}@x.example`, name: "S" });
let full: ReturnType<typeof staff>;
let integrationsOnly: ReturnType<typeof staff>;
let viewer: ReturnType<typeof staff>;
const as = (s: ReturnType<typeof staff>) => createCaller({ db: db.db, staff: s }).integrations;

async function failure(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}
const causeCode = (e: TRPCError) => (e.cause instanceof ApiError ? e.cause.code : null);
const row = async (keyId: string) => (await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, keyId)))[0]!;
/** A key as the public API sees it at `at`: "ok" or the refusal's catalog code. */
async function verdict(key: string, at = new Date()): Promise<string> {
  return authenticate(db.db, `Bearer ${key}`, "127.0.0.1", at).then(
    () => "ok",
    (e: ApiError) => e.code,
  );
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  const rights = ["manage_integrations", "manage_webhooks", "view_personal_data", "topup_wallet"] as const;
  full = staff(await makeStaff(db.db, t.tenantId, [...rights]));
  integrationsOnly = staff(await makeStaff(db.db, t.tenantId, ["manage_integrations"]));
  viewer = staff(await makeStaff(db.db, t.tenantId, ["view_personal_data"]));
});
afterAll(async () => db.drop());

/** Issues a key through the console as `full`, with the fixture's allowlist. */
async function consoleKey(name: string | null, expiresAt: string | null = null) {
  return as(full).issueKey({
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    name,
    mode: "live",
    expiresAt,
    ipAllowlist: ["127.0.0.1"],
  });
}

describe("key names", () => {
  it("are optional at issue, listed, editable and cleared by an empty name; too long is a field error", async () => {
    const named = await consoleKey("  shop backend ");
    const unnamed = await consoleKey(null);
    expect(named.name).toBe("shop backend");
    let list = await as(viewer).keys({ tenantId: t.tenantId, integrationId: t.integrationId });
    expect(list.find((k) => k.keyId === named.keyId)?.name).toBe("shop backend");
    expect(list.find((k) => k.keyId === unnamed.keyId)?.name).toBeNull();

    await as(integrationsOnly).renameKey({ tenantId: t.tenantId, keyId: unnamed.keyId, name: "CRM sync" });
    await as(integrationsOnly).renameKey({ tenantId: t.tenantId, keyId: named.keyId, name: "" });
    list = await as(viewer).keys({ tenantId: t.tenantId, integrationId: t.integrationId });
    expect(list.find((k) => k.keyId === unnamed.keyId)?.name).toBe("CRM sync");
    expect(list.find((k) => k.keyId === named.keyId)?.name).toBeNull();

    const long = await failure(as(full).renameKey({ tenantId: t.tenantId, keyId: named.keyId, name: "x".repeat(101) }));
    expect([long.code, causeCode(long)]).toEqual(["BAD_REQUEST", "validation_failed"]);
    expect(long.cause instanceof ApiError && long.cause.extras.errors?.map((e) => e.field)).toEqual(["/name"]);
    const atIssue = await failure(consoleKey("x".repeat(101)));
    expect(causeCode(atIssue)).toBe("validation_failed");
  });

  it("need manage_integrations, and another tenant's key reads as not found", async () => {
    const k = await consoleKey("mine");
    const denied = await failure(as(viewer).renameKey({ tenantId: t.tenantId, keyId: k.keyId, name: "x" }));
    expect(denied.code).toBe("FORBIDDEN");
    const other = await makeTenant(db.db);
    const foreign = await failure(as(full).renameKey({ tenantId: t.tenantId, keyId: other.keyId, name: "x" }));
    expect(foreign.code).toBe("NOT_FOUND");
    expect((await row(k.keyId)).name).toBe("mine");
    expect((await row(other.keyId)).name).toBeNull();
  });
});

describe("rolling a key", () => {
  it("issues a key with the same settings; the old one works until the delay ends and is refused after", async () => {
    const old = await consoleKey("shop backend", new Date(Date.now() + 90 * DAY).toISOString());
    await setLimitOverride(db.db, { keyId: old.keyId }, { readPerMin: 77 });
    const before = Date.now();
    const rolled = await as(full).rollKey({ tenantId: t.tenantId, keyId: old.keyId, delay: "1h" });
    expect(rolled.key).toMatch(/^sk_live_ru_/);
    expect(rolled.keyId).not.toBe(old.keyId);
    expect(rolled.name).toBe("shop backend");
    expect(rolled.mode).toBe("live");
    expect(rolled.old.keyId).toBe(old.keyId);
    const oldExpiry = Date.parse(rolled.old.expiresAt);
    expect(oldExpiry).toBeGreaterThanOrEqual(before + HOUR);
    expect(oldExpiry).toBeLessThanOrEqual(Date.now() + HOUR);
    // Same lifetime as the old key (90 days), counted from the roll.
    expect(Math.abs(Date.parse(rolled.expiresAt) - (Date.now() + 90 * DAY))).toBeLessThan(10 * 60_000);

    const fresh = await row(rolled.keyId);
    expect(fresh).toMatchObject({ integrationId: t.integrationId, mode: "live", ipAllowlist: ["127.0.0.1"] });
    const [limits] = await db.db.select().from(rateLimitOverrides).where(eq(rateLimitOverrides.keyId, rolled.keyId));
    expect(limits?.readPerMin).toBe(77);

    // Both keys work now, through the whole pipeline.
    expect((await call("GET", "/me", { key: rolled.key })).status).toBe(200);
    const meOld = await call("GET", "/me", { key: old.key });
    expect(meOld.status).toBe(200);
    // Time control: the old key at one minute before and one second after its new expiry.
    expect(await verdict(old.key, new Date(oldExpiry - 60_000))).toBe("ok");
    expect(await verdict(old.key, new Date(oldExpiry + 1000))).toBe("invalid_api_key");
    expect(await verdict(rolled.key, new Date(oldExpiry + 1000))).toBe("ok");

    const list = await as(viewer).keys({ tenantId: t.tenantId, integrationId: t.integrationId });
    expect(list.find((k) => k.keyId === old.keyId)).toMatchObject({ state: "active", replacedBy: rolled.keyId });
    expect(list.find((k) => k.keyId === rolled.keyId)).toMatchObject({ state: "active", replacedBy: null });
  });

  it("with delay now: the old key answers 401 at once and the new one 200", async () => {
    const old = await consoleKey("now");
    const rolled = await as(full).rollKey({ tenantId: t.tenantId, keyId: old.keyId, delay: "now" });
    const refused = await call("GET", "/me", { key: old.key });
    expect([refused.status, refused.body.code]).toEqual([401, "invalid_api_key"]);
    const me = await call("GET", "/me", { key: rolled.key });
    expect([me.status, me.body.key.key_id]).toEqual([200, rolled.keyId]);
    const list = await as(viewer).keys({ tenantId: t.tenantId, integrationId: t.integrationId });
    expect(list.find((k) => k.keyId === old.keyId)?.state).toBe("expired");
  });

  it("never lengthens the old key's life: a key that expires sooner keeps its expiry", async () => {
    const soon = new Date(Date.now() + 2 * HOUR);
    const old = await consoleKey(null, soon.toISOString());
    const rolled = await as(full).rollKey({ tenantId: t.tenantId, keyId: old.keyId, delay: "7d" });
    expect(Date.parse(rolled.old.expiresAt)).toBe(soon.getTime());
    // A two-hour key rolls to a key of at least a day.
    expect(Date.parse(rolled.expiresAt)).toBeGreaterThan(Date.now() + 23 * HOUR);
  });

  it("refuses a rolled, revoked or expired key, and an unknown delay", async () => {
    const a = await consoleKey(null);
    await as(full).rollKey({ tenantId: t.tenantId, keyId: a.keyId, delay: "24h" });
    const twice = await failure(as(full).rollKey({ tenantId: t.tenantId, keyId: a.keyId, delay: "24h" }));
    expect([twice.code, causeCode(twice)]).toEqual(["CONFLICT", "invalid_state"]);

    const b = await consoleKey(null);
    await as(full).revokeKey({ tenantId: t.tenantId, keyId: b.keyId });
    expect(causeCode(await failure(as(full).rollKey({ tenantId: t.tenantId, keyId: b.keyId, delay: "1h" })))).toBe(
      "invalid_state",
    );

    const c = await consoleKey(null);
    await as(full).rollKey({ tenantId: t.tenantId, keyId: c.keyId, delay: "now" });
    const expired = await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, c.keyId));
    await db.db.update(apiKeys).set({ replacedBy: null }).where(eq(apiKeys.id, expired[0]!.id));
    expect(causeCode(await failure(as(full).rollKey({ tenantId: t.tenantId, keyId: c.keyId, delay: "1h" })))).toBe(
      "invalid_state",
    );

    const d = await consoleKey(null);
    const bad = await failure(
      as(full).rollKey({ tenantId: t.tenantId, keyId: d.keyId, delay: "2d" as unknown as "1h" }),
    );
    expect(bad.code).toBe("BAD_REQUEST");
    expect((await row(d.keyId)).replacedBy).toBeNull();
  });

  it("needs the rights of issuing a key; refused, nothing changes", async () => {
    const k = await consoleKey("keep");
    const noRight = await failure(as(viewer).rollKey({ tenantId: t.tenantId, keyId: k.keyId, delay: "now" }));
    expect(noRight.code).toBe("FORBIDDEN");
    // manage_integrations alone does not cover this all-scope integration's personal-data and webhook scopes.
    const narrow = await failure(as(integrationsOnly).rollKey({ tenantId: t.tenantId, keyId: k.keyId, delay: "now" }));
    expect([narrow.code, causeCode(narrow)]).toEqual(["FORBIDDEN", "scope_missing"]);
    const other = await makeTenant(db.db);
    const foreign = await failure(as(full).rollKey({ tenantId: t.tenantId, keyId: other.keyId, delay: "now" }));
    expect(foreign.code).toBe("NOT_FOUND");

    const after = await row(k.keyId);
    expect(after.replacedBy).toBeNull();
    expect(await verdict(k.key)).toBe("ok");
    expect(await verdict(other.key)).toBe("ok");
    const keys = await db.db.select().from(apiKeys).where(eq(apiKeys.integrationId, t.integrationId));
    expect(keys.filter((x) => x.name === "keep")).toHaveLength(1);
  });

  it("the old key of a 7-day roll gets one api_key.expiring notice (7 days left); the new key none", async () => {
    const old = await consoleKey("notice");
    const rolled = await as(full).rollKey({ tenantId: t.tenantId, keyId: old.keyId, delay: "7d" });
    const { notices } = await runKeyExpiryNotices(db.db);
    expect(notices.filter((n) => n.keyId === old.keyId)).toEqual([
      expect.objectContaining({ threshold: 7, daysLeft: 7 }),
    ]);
    expect(notices.filter((n) => n.keyId === rolled.keyId)).toEqual([]);
    expect((await runKeyExpiryNotices(db.db)).notices.filter((n) => n.keyId === old.keyId)).toEqual([]);
  });
});
