import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, requestLog, tenants, webhookSubscriptions } from "@/db/schema";
import { GET as trpcGet } from "@/app/api/trpc/[trpc]/route";
import { createAuth } from "@/server/auth/auth";
import { ApiError } from "@/server/errors";
import { consoleModeCookie } from "@/server/lib/console-mode";
import { authenticate } from "@/server/services/access/authenticate";
import { issueKey } from "@/server/services/keys/keys";
import { setPreview } from "@/server/services/tenants/previews";
import { createStaffMember } from "@/server/services/tenants/staff";
import { staffMembership } from "@/server/services/tenants/memberships";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Test mode (issue 69 item 6): the switch's cookie reaches the staff actor as
// `livemode: false` only for a tenant with the preview `test-mode`; the keys pages list, issue and change
// only the keys of the mode shown; "Reset test data" (`sandbox.reset`) empties the sandbox and seeds it
// again, and no live row changes.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
/** A tenant with the preview `test-mode`. */
let sb: TenantFixture;
/** A tenant without it, as before test mode. */
let plain: TenantFixture;
const PASSWORD = "correct-horse-battery";
const OWNER_EMAIL = "owner@sandbox.example";
const staff = (id: string) => ({ id, email: `${id}@x.example`, name: "S" });
let owner: ReturnType<typeof staff>;
let viewer: ReturnType<typeof staff>;
let plainOwner: ReturnType<typeof staff>;

/** The console's procedures as `s`, with the Test mode switch on or off. */
const as = (s: ReturnType<typeof staff>, testMode: boolean) => createCaller({ db: db.db, staff: s, testMode });

async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}
const fieldOf = (e: TRPCError) => (e.cause instanceof ApiError ? e.cause.extras.errors?.[0]?.field : null);

beforeAll(async () => {
  db = await openTestDatabase();
  sb = await makeTenant(db.db);
  plain = await makeTenant(db.db);
  await setPreview(db.db, sb.tenantId, "test-mode", true);
  const rights = ["manage_integrations", "manage_webhooks", "view_personal_data", "topup_wallet"] as const;
  owner = {
    id: (
      await createStaffMember(db.db, {
        tenantId: sb.tenantId,
        email: OWNER_EMAIL,
        password: PASSWORD,
        name: "O",
        rights: [...rights],
      })
    ).staffUserId,
    email: OWNER_EMAIL,
    name: "O",
  };
  viewer = staff(await makeStaff(db.db, sb.tenantId, ["view_personal_data"]));
  plainOwner = staff(await makeStaff(db.db, plain.tenantId, [...rights]));
});
afterAll(async () => db.drop());

/** Issues a key through the console as the tenant's owner in the given mode. */
function consoleKey(t: TenantFixture, who: ReturnType<typeof staff>, testMode: boolean, mode: "live" | "test") {
  return as(who, testMode).integrations.issueKey({
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    name: `${mode} key`,
    mode,
    expiresAt: null,
    ipAllowlist: ["127.0.0.1"],
  });
}

describe("the staff actor's mode", () => {
  it("is the sandbox only with the switch on and the preview on", async () => {
    expect((await staffMembership(db.db, owner.id, sb.tenantId, true)).actor.livemode).toBe(false);
    expect((await staffMembership(db.db, owner.id, sb.tenantId, false)).actor.livemode).toBe(true);
    expect((await staffMembership(db.db, plainOwner.id, plain.tenantId, true)).actor.livemode).toBe(true);
    expect((await staffMembership(db.db, plainOwner.id, plain.tenantId, true)).testModeAvailable).toBe(false);
  });

  it("shows in the overview: available with the preview, on only with the switch", async () => {
    expect((await as(owner, true).tenants.overview({ tenantId: sb.tenantId })).testMode).toEqual({
      available: true,
      on: true,
    });
    expect((await as(owner, false).tenants.overview({ tenantId: sb.tenantId })).testMode).toEqual({
      available: true,
      on: false,
    });
    expect((await as(plainOwner, true).tenants.overview({ tenantId: plain.tenantId })).testMode).toEqual({
      available: false,
      on: false,
    });
  });

  it("is read from the console_mode cookie of a request through the HTTP door", async () => {
    const res = await createAuth(db.db).api.signInEmail({
      body: { email: OWNER_EMAIL, password: PASSWORD },
      asResponse: true,
    });
    const session = (res.headers.get("set-cookie") ?? "").split(";")[0];
    const input = encodeURIComponent(JSON.stringify({ tenantId: sb.tenantId }));
    const overview = async (cookie: string) => {
      const r = await trpcGet(
        new Request(`https://api.example.ru/api/trpc/tenants.overview?input=${input}`, { headers: { cookie } }),
      );
      expect(r.status).toBe(200);
      return ((await r.json()) as { result: { data: { testMode: { on: boolean } } } }).result.data.testMode.on;
    };
    const on = consoleModeCookie(true, true).split(";")[0];
    expect(on).toBe("console_mode=test");
    expect(await overview(`${session}; ${on}`)).toBe(true);
    expect(await overview(`${on}; ${session}`)).toBe(true);
    expect(await overview(session)).toBe(false);
    expect(await overview(`${session}; console_mode=live`)).toBe(false);
    expect(await overview(`${session}; ${consoleModeCookie(false, true).split(";")[0]}`)).toBe(false);
  });
});

describe("the console's first look at the sandbox", () => {
  it("seeds a never-used sandbox when a page is first shown in Test mode, never out of it", async () => {
    const t = await makeTenant(db.db);
    await setPreview(db.db, t.tenantId, "test-mode", true);
    const who = staff(await makeStaff(db.db, t.tenantId, ["manage_integrations", "view_personal_data"]));
    const seededAt = async () =>
      (await db.db.select({ at: tenants.sandboxSeededAt }).from(tenants).where(eq(tenants.id, t.tenantId)))[0]!.at;
    await as(who, false).tenants.overview({ tenantId: t.tenantId });
    expect(await seededAt()).toBeNull();
    await as(who, true).tenants.overview({ tenantId: t.tenantId });
    expect(await seededAt()).not.toBeNull();
    const sandboxRows = await db.db
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.tenantId, t.tenantId), eq(webhookSubscriptions.livemode, false)));
    expect(sandboxRows.length).toBeGreaterThan(0);
  });
});

describe("keys by mode", () => {
  it("lists only test keys in Test mode and only live keys out of it", async () => {
    const live = await consoleKey(sb, owner, false, "live");
    const test = await consoleKey(sb, owner, true, "test");
    expect(test.key).toMatch(/^sk_test_/);
    const ids = async (testMode: boolean) =>
      (await as(viewer, testMode).integrations.keys({ tenantId: sb.tenantId, integrationId: sb.integrationId })).map(
        (k) => k.keyId,
      );
    const inTest = await ids(true);
    const inLive = await ids(false);
    expect(inTest).toContain(test.keyId);
    expect(inTest).not.toContain(live.keyId);
    expect(inLive).toContain(live.keyId);
    expect(inLive).not.toContain(test.keyId);
    expect(inLive).toContain(sb.keyId);
    // The test key works in the sandbox through the API, the live key in live data.
    expect((await authenticate(db.db, `Bearer ${test.key}`, "127.0.0.1")).actor.livemode).toBe(false);
    expect((await authenticate(db.db, `Bearer ${live.key}`, "127.0.0.1")).actor.livemode).toBe(true);
  });

  it("lists every key of a tenant without the preview, whatever the switch, as before test mode", async () => {
    const test = await consoleKey(plain, plainOwner, true, "test");
    const list = await as(plainOwner, true).integrations.keys({
      tenantId: plain.tenantId,
      integrationId: plain.integrationId,
    });
    expect(list.map((k) => k.keyId)).toEqual(expect.arrayContaining([test.keyId, plain.keyId]));
  });

  it("issues only keys of the mode shown: a live key in Test mode or a test key out of it is a /mode error", async () => {
    const liveInTest = await rejects(consoleKey(sb, owner, true, "live"));
    expect(liveInTest.code).toBe("BAD_REQUEST");
    expect(fieldOf(liveInTest)).toBe("/mode");
    expect(liveInTest.message).toContain("switch Test mode off");
    const testInLive = await rejects(consoleKey(sb, owner, false, "test"));
    expect(testInLive.code).toBe("BAD_REQUEST");
    expect(fieldOf(testInLive)).toBe("/mode");
    expect(testInLive.message).toContain("switch on Test mode");
  });

  it("finds no key of the other mode to rename, roll or revoke", async () => {
    const live = await consoleKey(sb, owner, false, "live");
    const test = await consoleKey(sb, owner, true, "test");
    const c = (testMode: boolean) => as(owner, testMode).integrations;
    for (const [key, testMode] of [
      [live, true],
      [test, false],
    ] as const) {
      const keyId = key.keyId;
      expect((await rejects(c(testMode).renameKey({ tenantId: sb.tenantId, keyId, name: "x" }))).code).toBe(
        "NOT_FOUND",
      );
      expect((await rejects(c(testMode).rollKey({ tenantId: sb.tenantId, keyId, delay: "now" }))).code).toBe(
        "NOT_FOUND",
      );
      expect((await rejects(c(testMode).revokeKey({ tenantId: sb.tenantId, keyId }))).code).toBe("NOT_FOUND");
      const [row] = await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, keyId));
      expect(row).toMatchObject({ name: `${key.mode} key`, revokedAt: null, replacedBy: null });
    }
    // In its own mode each one is renamed, rolled (to a key of the same mode) and revoked.
    await c(true).renameKey({ tenantId: sb.tenantId, keyId: test.keyId, name: "sandbox backend" });
    const rolled = await c(true).rollKey({ tenantId: sb.tenantId, keyId: test.keyId, delay: "1h" });
    expect(rolled.key).toMatch(/^sk_test_/);
    expect((await c(false).revokeKey({ tenantId: sb.tenantId, keyId: live.keyId })).keyId).toBe(live.keyId);
  });
});

describe("sandbox.reset", () => {
  /** A request log row of `tenantId` in a mode, with a marker path. */
  async function logRow(tenantId: string, livemode: boolean, path: string) {
    await db.db.insert(requestLog).values({
      createdAt: new Date(),
      tenantId,
      livemode,
      method: "GET",
      path,
      status: 200,
      latencyMs: 1,
      requestId: crypto.randomUUID(),
    });
  }
  async function subscription(t: TenantFixture, livemode: boolean) {
    const [s] = await db.db
      .insert(webhookSubscriptions)
      .values({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        livemode,
        url: "https://hooks.example.com/x",
        secretEnc: "x",
      })
      .returning({ id: webhookSubscriptions.id });
    return s!.id;
  }
  /** Paths of the tenant's request log rows of one mode, sorted. */
  const paths = async (tenantId: string, livemode: boolean) =>
    (
      await db.db
        .select({ path: requestLog.path })
        .from(requestLog)
        .where(and(eq(requestLog.tenantId, tenantId), eq(requestLog.livemode, livemode)))
    )
      .map((r) => r.path)
      .sort();

  it("empties the tenant's sandbox and seeds it again; live rows and other tenants' sandboxes stay", async () => {
    const other = await makeTenant(db.db);
    await setPreview(db.db, other.tenantId, "test-mode", true);
    await logRow(sb.tenantId, true, "/live");
    await logRow(sb.tenantId, false, "/sandbox");
    await logRow(other.tenantId, false, "/other-sandbox");
    const liveSub = await subscription(sb, true);
    const testSub = await subscription(sb, false);
    const live = await paths(sb.tenantId, true);
    expect(live).toContain("/live");

    expect(await as(owner, true).sandbox.reset({ tenantId: sb.tenantId })).toEqual({
      tenant_id: sb.tenantId,
      livemode: false,
      reset: true,
    });
    expect(await paths(sb.tenantId, true)).toEqual(live);
    // The marker row is gone; the sandbox holds the seeded sample traffic instead.
    const sandbox = await paths(sb.tenantId, false);
    expect(sandbox).not.toContain("/sandbox");
    expect(sandbox.length).toBeGreaterThan(0);
    expect(await paths(other.tenantId, false)).toEqual(["/other-sandbox"]);
    const subs = await db.db
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.tenantId, sb.tenantId));
    expect(subs.map((s) => s.id)).toContain(liveSub);
    expect(subs.map((s) => s.id)).not.toContain(testSub);
    const [t] = await db.db.select().from(tenants).where(eq(tenants.id, sb.tenantId));
    expect(t!.sandboxSeededAt).toBeInstanceOf(Date);
  });

  it("needs manage_integrations, and a tenant without the preview has no sandbox to reset", async () => {
    const forbidden = await rejects(as(viewer, true).sandbox.reset({ tenantId: sb.tenantId }));
    expect(forbidden.code).toBe("FORBIDDEN");
    expect(forbidden.message).toContain("manage_integrations");
    const missing = await rejects(as(plainOwner, true).sandbox.reset({ tenantId: plain.tenantId }));
    expect(missing.code).toBe("NOT_FOUND");
  });

  it("works the same with the switch off: it resets the sandbox, never the live data shown", async () => {
    await logRow(sb.tenantId, false, "/sandbox-2");
    await as(owner, false).sandbox.reset({ tenantId: sb.tenantId });
    expect(await paths(sb.tenantId, false)).not.toContain("/sandbox-2");
    expect(await paths(sb.tenantId, true)).toContain("/live");
  });

  it("keeps the test keys: a test key made before a reset still works in the sandbox", async () => {
    const test = await issueKey(db.db, { integrationId: sb.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    await as(owner, true).sandbox.reset({ tenantId: sb.tenantId });
    expect((await authenticate(db.db, `Bearer ${test.key}`, "127.0.0.1")).actor.livemode).toBe(false);
  });
});
