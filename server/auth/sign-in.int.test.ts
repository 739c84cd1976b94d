import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as authPost, GET as authGet } from "@/app/api/auth/[...all]/route";
import { memberships, staffUsers } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { setClock } from "@/server/lib/clock";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { addMembership, createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { serveRoutes, type RouteServer } from "@/server/testing/route-server";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { setSignInLimits, SIGN_IN_LIMITS, type SignInLimits } from "./sign-in-limits";

// Console sign-in over real HTTP (issue 23 items 3 and 4): a local server that stamps the TCP peer
// as server/http-server.ts does and hands the request to the app's /api/auth route (route-server.ts). Clients
// connect from different loopback addresses (127.0.0.0/8 is all loopback on Linux), so "another
// address" is a real other TCP peer, not a header. Each refused-or-not attempt costs a scrypt check, so
// the limits are scaled down here with their proportions kept; the production numbers are checked below.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let server: RouteServer;
const ORIGIN = "https://api.example.ru";
const OWNER = { email: "owner@sign-in.example", password: "correct-horse-battery" };
const LIMITS: SignInLimits = { perAddress: 6, perAccountFromAddress: 3, perAccount: 9 };

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db);
  await createStaffMember(db.db, { tenantId: a.tenantId, email: OWNER.email, password: OWNER.password, name: "Owner" });
  setSignInLimits(LIMITS);
  server = await serveRoutes(ORIGIN, (method) => (method === "GET" ? authGet : authPost));
});
beforeEach(() => {
  // One fixed instant early in a fresh minute: the sliding windows hold exactly what each test sent.
  const start = Math.floor(Date.now() / 60_000) * 60_000 + 60_000 * 1000 + 1_000;
  setClock(() => start);
  setTestEnv();
});
afterAll(async () => {
  setSignInLimits(undefined);
  setClock(undefined);
  setTestEnv();
  await server?.close();
  await db.drop();
});

/** POSTs `body` to /api/auth<path> over TCP from the local address `from` (default 127.0.0.1). */
const send = (path: string, body: string, opts: { from?: string; headers?: Record<string, string> }) =>
  server.send("POST", `/api/auth${path}`, {
    from: opts.from,
    body,
    headers: { "content-type": "application/json", origin: ORIGIN, ...opts.headers },
  });
async function post(path: string, body: unknown, opts: { from: string; headers?: Record<string, string> }) {
  const r = await send(path, JSON.stringify(body), opts);
  return {
    status: r.status,
    headers: r.headers,
    body: r.text ? (JSON.parse(r.text) as { code?: string; message?: string }) : null,
  };
}
const signIn = (email: string, password: string, from: string, headers?: Record<string, string>) =>
  post("/sign-in/email", { email, password }, { from, headers });
let forged = 0;
const fakeIp = () => `198.51.${Math.floor(++forged / 250) % 250}.${(forged % 250) + 1}`;

describe("sign-in limits per address (TRUST_PROXY=none)", () => {
  it("in production: 20 attempts a minute per address, 10 per account from one address, 30 per account", () => {
    expect(SIGN_IN_LIMITS).toEqual({ perAddress: 20, perAccountFromAddress: 10, perAccount: 30 });
  });

  it("a forged X-Forwarded-For gives no fresh bucket: the TCP peer is counted", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.perAddress; i++) {
      const r = await signIn(`nobody-${i}@sign-in.example`, "wrong-password-1", "127.0.0.2", {
        "x-forwarded-for": fakeIp(),
        [PEER_HEADER]: fakeIp(),
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual(Array(LIMITS.perAddress).fill(401));
    const refused = await signIn("nobody-else@sign-in.example", "wrong-password-1", "127.0.0.2", {
      "x-forwarded-for": fakeIp(),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringMatching(/^Too many sign-in attempts from this address; try again in \d+ s\.$/),
    });
    // Refused before the password is looked at: even the right password waits.
    expect((await signIn(OWNER.email, OWNER.password, "127.0.0.2")).status).toBe(429);
    // The bucket is that address's only: another client signs in meanwhile.
    const owner = await signIn(OWNER.email, OWNER.password, "127.0.0.3");
    expect(owner.status).toBe(200);
    expect(owner.headers["set-cookie"]).toBeDefined();
  }, 60_000);
});

describe("sign-in limits per account", () => {
  it("one address gets a few guesses at one account; the owner, elsewhere, still signs in", async () => {
    const victim = "victim-1@sign-in.example";
    await createStaffMember(db.db, { tenantId: a.tenantId, email: victim, password: "victim-password-1", name: "V" });
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.perAccountFromAddress; i++)
      statuses.push(
        (await signIn(victim.toUpperCase(), `guess-number-${i}`, "127.0.0.5", { "x-forwarded-for": fakeIp() })).status,
      );
    expect(statuses).toEqual(Array(LIMITS.perAccountFromAddress).fill(401));
    const refused = await signIn(victim, "guess-number-x", "127.0.0.5", { "x-forwarded-for": fakeIp() });
    expect(refused.status).toBe(429);
    expect(refused.body?.message).toMatch(/for this account/);
    // The same attacker may still try other accounts (the per-address limit governs that) ...
    expect((await signIn("someone-else@sign-in.example", "guess-number-y", "127.0.0.5")).status).toBe(401);
    // ... and the owner, from their own address, is not locked out.
    expect((await signIn(victim, "victim-password-1", "127.0.0.6")).status).toBe(200);
  }, 60_000);

  it("many addresses together hit the account's own limit: no address gets fresh guesses", async () => {
    const victim = "victim-2@sign-in.example";
    await createStaffMember(db.db, { tenantId: a.tenantId, email: victim, password: "victim-password-2", name: "V" });
    const per = LIMITS.perAccountFromAddress;
    const addresses = LIMITS.perAccount / per;
    const statuses: number[] = [];
    for (let n = 0; n < addresses; n++) {
      for (let i = 0; i < per; i++) statuses.push((await signIn(victim, `guess-${n}-${i}`, `127.0.1.${n + 1}`)).status);
    }
    expect(statuses).toEqual(Array(LIMITS.perAccount).fill(401));
    const fresh = await signIn(victim, "guess-fresh", `127.0.1.${addresses + 1}`);
    expect(fresh.status).toBe(429);
    expect(fresh.body?.message).toMatch(/for this account/);
  }, 120_000);

  it("under TRUST_PROXY=1 the address is the one our proxy appended; entries to its left are ignored", async () => {
    setTestEnv({ TRUST_PROXY: "1" });
    const victim = "victim-3@sign-in.example";
    for (let i = 0; i < LIMITS.perAccountFromAddress; i++) {
      expect(
        (await signIn(victim, `guess-${i}`, "127.0.0.7", { "x-forwarded-for": `${fakeIp()}, 203.0.113.50` })).status,
      ).toBe(401);
    }
    expect(
      (await signIn(victim, "guess-x", "127.0.0.7", { "x-forwarded-for": `${fakeIp()}, 203.0.113.50` })).status,
    ).toBe(429);
    // Another client behind the same proxy (another appended address) is a bucket of its own.
    expect((await signIn(victim, "guess-y", "127.0.0.7", { "x-forwarded-for": "203.0.113.51" })).status).toBe(401);
  }, 60_000);

  it("a body that is not JSON, or a huge one, cannot slip past the account limit", async () => {
    const form = await send("/sign-in/email", `email=${encodeURIComponent(OWNER.email)}&password=x`, {
      from: "127.0.0.11",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(400);
    expect(JSON.parse(form.text)).toMatchObject({ code: "INVALID_REQUEST" });
    const huge = await send("/sign-in/email", JSON.stringify({ email: OWNER.email, password: "x".repeat(20_000) }), {
      from: "127.0.0.11",
    });
    expect(huge.status).toBe(413);
  });
});

describe("no open sign-up (issue 23 item 4)", () => {
  it("POST /api/auth/sign-up/email is refused and creates nothing", async () => {
    const email = "intruder@sign-in.example";
    const r = await post("/sign-up/email", { email, password: "intruder-password", name: "I" }, { from: "127.0.0.8" });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "SIGN_UP_DISABLED" });
    expect(await db.db.select().from(staffUsers).where(eq(staffUsers.email, email))).toEqual([]);
  });

  it("the sign-in library refuses sign-up too, whoever calls it", async () => {
    const email = "intruder-2@sign-in.example";
    const err = await createAuth(db.db)
      .api.signUpEmail({ body: { email, password: "intruder-password", name: "I" } })
      .then(
        () => null,
        (e: unknown) => e as { body?: { code?: string } },
      );
    expect(err?.body?.code).toBe("EMAIL_PASSWORD_SIGN_UP_DISABLED");
    expect(await db.db.select().from(staffUsers).where(eq(staffUsers.email, email))).toEqual([]);
  });

  it("adding staff by an email that already has an account attaches nothing to it", async () => {
    // Whoever holds this account's password (here: someone who signed up before sign-up was closed).
    const b = await makeTenant(db.db);
    const email = "taken@sign-in.example";
    const { staffUserId } = await createStaffMember(db.db, {
      tenantId: b.tenantId,
      email,
      password: "attacker-password",
      name: "Attacker",
      rights: [],
    });
    const err = await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: ` ${email.toUpperCase()} `,
      password: "owner-chosen-password",
      name: "New colleague",
    }).then(
      () => null,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err?.code).toBe("invalid_state");
    expect(err?.message).toMatch(/already exists/);
    expect(await db.db.select().from(memberships).where(eq(memberships.staffUserId, staffUserId))).toMatchObject([
      { tenantId: b.tenantId },
    ]);
    // The existing password is unchanged, and the one the tenant chose opens nothing.
    expect((await signIn(email, "owner-chosen-password", "127.0.0.9")).status).toBe(401);
    expect((await signIn(email, "attacker-password", "127.0.0.9")).status).toBe(200);
  });

  it("an operator gives an existing account (by id) a membership; an account made by the operator signs in", async () => {
    const c = await makeTenant(db.db);
    const { staffUserId } = await createStaffMember(db.db, {
      tenantId: c.tenantId,
      email: "made-by-operator@sign-in.example",
      password: "operator-password",
      name: "M",
      rights: ["manage_webhooks"],
    });
    await addMembership(db.db, { tenantId: a.tenantId, staffUserId, role: "admin", rights: ["manage_integrations"] });
    const rows = await db.db
      .select({ tenantId: memberships.tenantId, rights: memberships.rights })
      .from(memberships)
      .where(eq(memberships.staffUserId, staffUserId));
    expect(rows).toEqual(
      expect.arrayContaining([
        { tenantId: c.tenantId, rights: ["manage_webhooks"] },
        { tenantId: a.tenantId, rights: ["manage_integrations"] },
      ]),
    );
    expect((await signIn("made-by-operator@sign-in.example", "operator-password", "127.0.0.10")).status).toBe(200);
  });

  it("refuses a short password or a bad email when creating staff", async () => {
    const short = await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: "short@sign-in.example",
      password: "short",
      name: "S",
    }).catch((e: unknown) => e as { code: string; extras: { errors: { field: string }[] } });
    expect(short).toMatchObject({ code: "validation_failed", extras: { errors: [{ field: "/password" }] } });
    const bad = await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: "not-an-email",
      password: "long-enough-password",
      name: "S",
    }).catch((e: unknown) => e as { code: string; extras: { errors: { field: string }[] } });
    expect(bad).toMatchObject({ code: "validation_failed", extras: { errors: [{ field: "/email" }] } });
  });
});

describe("control characters at the sign-in door (issue 76 item 4)", () => {
  it("a POST whose JSON holds U+0000 is refused 400 naming the field, and changes nothing", async () => {
    const owner = await signIn(OWNER.email, OWNER.password, "127.0.0.12");
    expect(owner.status).toBe(200);
    const cookie = String(owner.headers["set-cookie"] ?? "").split(";")[0];
    // Before the check, better-auth's update-user reached PostgreSQL's UPDATE with the NUL: a 500.
    const update = await post("/update-user", { name: "Own\u0000er" }, { from: "127.0.0.12", headers: { cookie } });
    expect(update.status).toBe(400);
    expect(update.body).toMatchObject({ code: "INVALID_REQUEST" });
    expect(update.body?.message).toContain("/name");
    const [row] = await db.db
      .select({ name: staffUsers.name })
      .from(staffUsers)
      .where(eq(staffUsers.email, OWNER.email));
    expect(row.name).toBe("Owner");
    const nulEmail = await signIn("own\u0000er@sign-in.example", "x", "127.0.0.12");
    expect([nulEmail.status, nulEmail.body?.code]).toEqual([400, "INVALID_REQUEST"]);
    // An ordinary change still goes through the same door.
    const fine = await post("/update-user", { name: "Owner Renamed" }, { from: "127.0.0.12", headers: { cookie } });
    expect(fine.status).toBe(200);
    const [renamed] = await db.db
      .select({ name: staffUsers.name })
      .from(staffUsers)
      .where(eq(staffUsers.email, OWNER.email));
    expect(renamed.name).toBe("Owner Renamed");
  });
});
