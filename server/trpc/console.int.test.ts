import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walletLedger } from "@/db/schema";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { createAuth } from "@/server/auth/auth";
import { ApiError } from "@/server/errors";
import { createStaffMember } from "@/server/services/tenants/staff";
import { flushRequestLog } from "@/server/services/request-log/writer";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { POST as sandboxDecide } from "@/app/pay/sandbox/[id]/decide/route";
import { createCaller } from "./root";

// The console's procedures: every one checks the staff user's tenant and rights, errors carry the
// catalog code, and the HTTP door refuses cross-site writes.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let b: TenantFixture;
const staff = {
  manager: { id: "", email: "manager@a.example", name: "M" },
  owner: { id: "", email: "owner@a.example", name: "O" },
  other: { id: "", email: "other@b.example", name: "B" },
};
const PASSWORD = "correct-horse-battery";

const as = (s: { id: string; email: string; name: string } | null) => createCaller({ db: db.db, staff: s });

async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db, { balanceMinor: 0n });
  b = await makeTenant(db.db);
  staff.manager.id = (
    await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: staff.manager.email,
      password: PASSWORD,
      name: "M",
      role: "admin",
      rights: ["manage_integrations"],
    })
  ).staffUserId;
  staff.owner.id = (
    await createStaffMember(db.db, { tenantId: a.tenantId, email: staff.owner.email, password: PASSWORD, name: "O" })
  ).staffUserId;
  staff.other.id = (
    await createStaffMember(db.db, { tenantId: b.tenantId, email: staff.other.email, password: PASSWORD, name: "B" })
  ).staffUserId;
});
afterAll(async () => db.drop());

describe("tenant and rights checks", () => {
  it("needs a signed-in staff user", async () => {
    expect((await rejects(as(null).tenants.mine())).code).toBe("UNAUTHORIZED");
  });

  it("lists only the user's tenants and hides the others as not found", async () => {
    expect((await as(staff.manager).tenants.mine()).map((t) => t.id)).toEqual([a.tenantId]);
    expect((await rejects(as(staff.other).tenants.overview({ tenantId: a.tenantId }))).code).toBe("NOT_FOUND");
    expect((await rejects(as(staff.other).integrations.list({ tenantId: a.tenantId }))).code).toBe("NOT_FOUND");
    expect(
      (await rejects(as(staff.other).integrations.keys({ tenantId: b.tenantId, integrationId: a.integrationId }))).code,
    ).toBe("NOT_FOUND");
  });

  it("needs the top-up right to top up", async () => {
    const err = await rejects(as(staff.manager).wallet.topUp({ tenantId: a.tenantId, amount: "100" }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toContain("topup_wallet");
  });
});

describe("integrations and keys", () => {
  it("creates an integration owned by the staff user; its effective scopes follow the owner's rights", async () => {
    const { id } = await as(staff.manager).integrations.create({
      tenantId: a.tenantId,
      name: "Sync",
      role: "full",
      scopes: ["cards:read", "leads:read"],
      piiCountry: "RU",
      legalBasis: "contract",
      ipAllowlist: ["203.0.113.0/24"],
    });
    const i = await as(staff.manager).integrations.get({ tenantId: a.tenantId, integrationId: id });
    // The manager lacks view_personal_data, so leads:read is granted but not effective.
    expect(i.scopes).toEqual(["cards:read", "leads:read"]);
    expect(i.effectiveScopes).toEqual(["cards:read"]);
    expect(i.channelId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ["a recipient outside Russia", { piiCountry: "DE", ipAllowlist: ["203.0.113.10"] }, "/pii_country"],
    ["no allowlist", { piiCountry: "RU", ipAllowlist: null }, "/ip_allowlist"],
    ["a wide allowlist", { piiCountry: "RU", ipAllowlist: ["10.0.0.0/8"] }, "/ip_allowlist"],
    ["a bad network", { piiCountry: "RU", ipAllowlist: ["10.0.0.0/40"] }, "/ip_allowlist/0"],
  ])("refuses personal-data scopes on the RU cell with %s", async (_n, patch, field) => {
    const err = await rejects(
      as(staff.owner).integrations.create({
        tenantId: a.tenantId,
        name: "PII",
        role: "full",
        scopes: ["leads:read"],
        legalBasis: "contract",
        ...patch,
      }),
    );
    expect(err.code).toBe("BAD_REQUEST");
    const cause = err.cause as ApiError;
    expect(cause.code).toBe("validation_failed");
    expect(cause.extras.errors?.map((e) => e.field)).toContain(field);
  });

  it("issues a key shown once, lists it without its secret, and revoking it closes the API", async () => {
    const { id } = await as(staff.owner).integrations.create({
      tenantId: a.tenantId,
      name: "Keys",
      role: "full",
      scopes: ["cards:read"],
      piiCountry: null,
      legalBasis: null,
      ipAllowlist: null,
    });
    const k = await as(staff.owner).integrations.issueKey({
      tenantId: a.tenantId,
      integrationId: id,
      mode: "live",
      expiresAt: null,
      ipAllowlist: ["127.0.0.1"],
    });
    expect(k.key).toMatch(/^sk_live_ru_/);
    await makeWalletPositive();
    expect((await call("GET", "/me", { key: k.key })).status).toBe(200);
    await flushRequestLog(); // the last-used stamp is written with the request log's batch
    const list = await as(staff.owner).integrations.keys({ tenantId: a.tenantId, integrationId: id });
    expect(list).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(k.key.split("_").pop()!);
    expect(list[0]).toMatchObject({
      keyId: k.keyId,
      mode: "live",
      state: "active",
      lastUsedAt: expect.any(String),
      lastUsedAddress: "127.0.0.1",
    });
    expect((await rejects(as(staff.other).integrations.revokeKey({ tenantId: b.tenantId, keyId: k.keyId }))).code).toBe(
      "NOT_FOUND",
    );
    await as(staff.owner).integrations.revokeKey({ tenantId: a.tenantId, keyId: k.keyId });
    expect((await call("GET", "/me", { key: k.key })).status).toBe(401);
    expect((await as(staff.owner).integrations.keys({ tenantId: a.tenantId, integrationId: id }))[0].state).toBe(
      "revoked",
    );
  });

  it("suspends and reactivates; a revoked integration stays revoked", async () => {
    const { id } = await as(staff.owner).integrations.create({
      tenantId: a.tenantId,
      name: "States",
      role: "read_only",
      scopes: ["cards:read"],
      piiCountry: null,
      legalBasis: null,
      ipAllowlist: null,
    });
    expect(
      (await as(staff.owner).integrations.setStatus({ tenantId: a.tenantId, integrationId: id, status: "suspended" }))
        .status,
    ).toBe("suspended");
    expect(
      (await as(staff.owner).integrations.setStatus({ tenantId: a.tenantId, integrationId: id, status: "active" }))
        .status,
    ).toBe("active");
    await as(staff.owner).integrations.setStatus({ tenantId: a.tenantId, integrationId: id, status: "revoked" });
    const err = await rejects(
      as(staff.owner).integrations.setStatus({ tenantId: a.tenantId, integrationId: id, status: "active" }),
    );
    expect(err.code).toBe("CONFLICT");
    expect((err.cause as ApiError).code).toBe("invalid_state");
  });
});

async function makeWalletPositive() {
  const w = await as(staff.owner).wallet.get({ tenantId: a.tenantId });
  if (w.state !== "ok")
    await changeBalance(db.db, { tenantId: a.tenantId, amountMinor: 500_000n, kind: "credit", actor: "operator" });
}

describe("wallet", () => {
  it("a top-up is a pending payment that credits nothing until paid; paid, a ledger row names the staff user and the payment", async () => {
    const before = await as(staff.owner).wallet.get({ tenantId: a.tenantId });
    const r = await as(staff.owner).wallet.topUp({ tenantId: a.tenantId, amount: "1500.50" });
    expect(r).toMatchObject({
      status: "pending",
      confirmationUrl: `https://api.example.ru/pay/sandbox/${r.paymentId}`,
    });
    expect((await as(staff.owner).wallet.get({ tenantId: a.tenantId })).balance).toBe(before.balance);
    expect(await as(staff.owner).wallet.payments({ tenantId: a.tenantId })).toMatchObject([
      { id: r.paymentId, amount: "1500.50", status: "pending", provider: "sandbox", by: staff.owner.email },
    ]);
    // The payer clicks "Pay" on the sandbox checkout; the return page's check then finds it paid.
    await sandboxDecide(
      new Request(`https://api.example.ru/pay/sandbox/${r.paymentId}/decide`, {
        method: "POST",
        body: new URLSearchParams({ outcome: "pay" }),
      }),
      { params: Promise.resolve({ id: r.paymentId }) },
    );
    expect(await as(staff.owner).wallet.checkPayment({ tenantId: a.tenantId, paymentId: r.paymentId })).toMatchObject({
      status: "succeeded",
    });
    const after = await as(staff.owner).wallet.get({ tenantId: a.tenantId });
    expect(Number(after.balance)).toBeCloseTo(Number(before.balance) + 1500.5, 2);
    const rows = await db.db
      .select()
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, a.tenantId), eq(walletLedger.kind, "topup")));
    expect(rows).toMatchObject([{ kind: "topup", amountMinor: 150050n, actor: `staff:${staff.owner.id}` }]);
    expect(rows[0].description).toContain(r.paymentId);
    const page = await as(staff.owner).wallet.ledger({ tenantId: a.tenantId, limit: 1 });
    expect(page.entries[0].description).toContain(r.paymentId);
    expect(page.next).not.toBeNull();
  });

  it("another tenant's staff cannot see or check a payment", async () => {
    const r = await as(staff.owner).wallet.topUp({ tenantId: a.tenantId, amount: "100" });
    const err = await rejects(as(staff.other).wallet.checkPayment({ tenantId: b.tenantId, paymentId: r.paymentId }));
    expect(err.code).toBe("NOT_FOUND");
  });

  it.each(["0", "-5", "12,50", "abc", "99.99", "1000000.01"])("refuses the amount %s", async (amount) => {
    const err = await rejects(as(staff.owner).wallet.topUp({ tenantId: a.tenantId, amount }));
    expect(err.code).toBe("BAD_REQUEST");
  });
});

describe("the HTTP door", () => {
  async function sessionCookie(): Promise<{ cookie: string; setCookie: string }> {
    const res = await createAuth(db.db).api.signInEmail({
      body: { email: staff.owner.email, password: PASSWORD },
      asResponse: true,
    });
    const setCookie = res.headers.get("set-cookie") ?? "";
    return { cookie: setCookie.split(";")[0], setCookie };
  }

  it("sets a secure, HttpOnly, SameSite session cookie and serves queries with it", async () => {
    const { cookie, setCookie } = await sessionCookie();
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/Secure/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const res = await trpcGet(new Request("https://api.example.ru/api/trpc/tenants.mine", { headers: { cookie } }));
    expect(res.status).toBe(200);
    expect((await res.json()).result.data[0].id).toBe(a.tenantId);
  });

  it("answers errors with the catalog code and no stack", async () => {
    const { cookie } = await sessionCookie();
    const input = encodeURIComponent(JSON.stringify({ tenantId: b.tenantId }));
    const res = await trpcGet(
      new Request(`https://api.example.ru/api/trpc/tenants.overview?input=${input}`, { headers: { cookie } }),
    );
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.data.code).toBe("not_found");
    expect(body.error.data.stack).toBeUndefined();
  });

  it("refuses a cross-site write and accepts a same-origin one", async () => {
    const { cookie } = await sessionCookie();
    const body = JSON.stringify({ tenantId: a.tenantId, amount: "100" });
    const evil = await trpcPost(
      new Request("https://api.example.ru/api/trpc/wallet.topUp", {
        method: "POST",
        body,
        headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
      }),
    );
    expect(evil.status).toBe(403);
    const ok = await trpcPost(
      new Request("https://api.example.ru/api/trpc/wallet.topUp", {
        method: "POST",
        body,
        headers: { cookie, origin: "https://api.example.ru", "content-type": "application/json" },
      }),
    );
    expect(ok.status).toBe(200);
  });
});
