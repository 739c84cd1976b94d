import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/db/schema";
import { createIntegration, setIntegrationStatus } from "@/server/services/integrations/integrations";
import { issueKey, revokeKey } from "@/server/services/keys/keys";
import { setLicense, setTenantStatus } from "@/server/services/tenants/tenants";
import { call, type ApiAnswer, type CallOptions } from "@/server/testing/api-client";
import { makeStaff, makeTenant, setMembership, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { SCOPES, type Right } from "@/server/schemas/scopes";

// Spec "Authentication" 1-5 and the catalog's 401/403 codes, seen from the caller: what each failure
// answers, that key failures are indistinguishable, and what GET /me reports as the effective scopes.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

const me = (key: string | null, o: CallOptions = {}) => call("GET", "/me", { key, ...o });
/**
 * What may differ between two answers of the same failure: nothing but the request id and the seconds
 * until the rate-limit window renews (a clock reading; present on both, checked to be a number).
 */
const sameness = (a: ApiAnswer) => ({
  status: a.status,
  body: { ...a.body, request_id: undefined },
  reset: /^\d+$/.test(a.headers.get("ratelimit-reset") ?? ""),
  headers: [...a.headers.entries()].filter(([k]) => k !== "x-request-id" && k !== "ratelimit-reset"),
});

/** A key of `t`'s integration with the given changes, for the invalid-key table. */
async function extraKey(opts: { mode?: string; ipAllowlist?: string[] | null } = {}) {
  return issueKey(db.db, { integrationId: t.integrationId, ipAllowlist: ["127.0.0.1"], ...opts });
}

/** An integration owned by a staff member with `rights`, with a key that may call from anywhere. */
async function ownedIntegration(rights: Right[], scopes: string[] = [...SCOPES]) {
  const tenant = await makeTenant(db.db);
  const staffId = await makeStaff(db.db, tenant.tenantId, rights);
  const i = await createIntegration(db.db, tenant.tenantId, {
    name: "Owned",
    scopes,
    ownerStaffUserId: staffId,
    piiCountry: "RU",
    legalBasis: "contract",
  });
  const k = await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] });
  return { tenant, staffId, integrationId: i.id, key: k.key };
}

describe("invalid_api_key: one code, a detail that says what to fix, and never whether a key existed", () => {
  it("tells a missing header and a header without a key of this platform apart, and answers unknown, wrong-secret, wrong-mode, revoked and expired keys identically", async () => {
    const [, id, secret] = /^sk_live_ru_([a-z2-7]{20})_([A-Za-z0-9]{40})$/.exec(t.key)!;
    const otherSecret = secret.slice(0, -1) + (secret.endsWith("A") ? "B" : "A");
    const revoked = await extraKey();
    await revokeKey(db.db, revoked.keyId);
    const expired = await extraKey();
    await db.db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKeys.keyId, expired.keyId));
    const testKey = await extraKey({ mode: "test" });
    const asLive = testKey.key.replace("sk_test_", "sk_live_");

    const groups: Record<"missing" | "malformed" | "unknown", [string, CallOptions & { key: string | null }][]> = {
      missing: [
        ["no Authorization header", { key: null }],
        ["an empty Authorization header", { key: null, headers: { authorization: "" } }],
      ],
      malformed: [
        ["an empty bearer", { key: null, headers: { authorization: "Bearer " } }],
        [
          "another scheme",
          { key: null, headers: { authorization: `Basic ${Buffer.from(`x:${t.key}`).toString("base64")}` } },
        ],
        ["no scheme", { key: null, headers: { authorization: t.key } }],
        ["two tokens", { key: null, headers: { authorization: `Bearer ${t.key} ${t.key}` } }],
        ["a malformed key", { key: "sk_live_ru_short_secret" }],
        ["the public key_id instead of the key", { key: t.keyId }],
      ],
      unknown: [
        ["an unknown key_id", { key: `sk_live_ru_${"a".repeat(20)}_${secret}` }],
        ["a wrong secret", { key: `sk_live_ru_${id}_${otherSecret}` }],
        ["a test key presented as live", { key: asLive }],
        ["a revoked key", { key: revoked.key }],
        ["an expired key", { key: expired.key }],
      ],
    };
    const details: Record<string, string> = {
      missing: "The Authorization header is missing; send `Authorization: Bearer <API key>`.",
      malformed:
        "The Authorization header does not hold an API key of this platform; send `Authorization: Bearer sk_live_...` (or `sk_test_...`) with the key exactly as it was issued.",
      unknown: "The API key is unknown, revoked or expired; check it in the tenant console, or issue a new one there.",
    };
    let caseNo = 0;
    for (const [group, cases] of Object.entries(groups)) {
      const answers: [string, ApiAnswer][] = [];
      // Each case from an address of its own: answers before a key is accepted count against the
      // caller's address (RateLimit-* headers), so one address would make Remaining differ by its count.
      for (const [name, o] of cases) answers.push([name, await me(o.key, { ...o, ip: `198.51.100.${++caseNo}` })]);
      const first = answers[0][1];
      expect(first.status).toBe(401);
      expect(first.headers.get("content-type")).toBe("application/problem+json");
      expect(first.body).toEqual({
        type: "https://api.example.ru/developers/errors#invalid_api_key",
        title: "Invalid API key",
        status: 401,
        code: "invalid_api_key",
        detail: details[group],
        request_id: first.headers.get("x-request-id"),
      });
      for (const [name, a] of answers) {
        expect(sameness(a), `${group}: ${name}`).toEqual(sameness(first));
        expect(a.body.request_id, name).toBe(a.headers.get("x-request-id"));
      }
    }
    // The real keys still work, so the table above is the checks and not broken fixtures.
    expect((await me(t.key)).status).toBe(200);
    expect((await me(testKey.key)).status).toBe(200);
  });

  it("accepts the scheme in any case", async () => {
    expect((await me(null, { headers: { authorization: `bearer ${t.key}` } })).status).toBe(200);
  });
});

describe("wrong_cell", () => {
  it.each([
    ["en", "https://api.example.com/api/public/v1"],
    ["id", "https://api.example.id/api/public/v1"],
  ])("answers a key of the %s cell with 401 and that cell's base URL", async (cell, url) => {
    const r = await me(t.key.replace("_ru_", `_${cell}_`));
    expect([r.status, r.body.code, r.body.correct_base_url]).toEqual([401, "wrong_cell", url]);
    expect(r.body.type).toBe("https://api.example.ru/developers/errors#wrong_cell");
  });
});

describe("integration_inactive", () => {
  it("answers a suspended integration's key with 401, and works again after reactivation", async () => {
    const x = await makeTenant(db.db);
    await setIntegrationStatus(db.db, x.integrationId, "suspended");
    const r = await me(x.key);
    expect([r.status, r.body.code]).toEqual([401, "integration_inactive"]);
    await setIntegrationStatus(db.db, x.integrationId, "active");
    expect((await me(x.key)).status).toBe(200);
  });

  it("answers a revoked integration's key with 401 integration_inactive", async () => {
    const x = await makeTenant(db.db);
    await setIntegrationStatus(db.db, x.integrationId, "revoked");
    const r = await me(x.key);
    expect([r.status, r.body.code]).toEqual([401, "integration_inactive"]);
  });

  it("answers 401 when the owning staff member lost access to the tenant", async () => {
    const o = await ownedIntegration(["view_personal_data", "manage_webhooks"]);
    expect((await me(o.key)).status).toBe(200);
    await setMembership(db.db, o.tenant.tenantId, o.staffId, { active: false });
    const r = await me(o.key);
    expect([r.status, r.body.code]).toEqual([401, "integration_inactive"]);
    expect(r.body.detail).not.toContain(o.staffId);
  });
});

describe("tenant_inactive", () => {
  it("answers 403 while the tenant is inactive", async () => {
    const x = await makeTenant(db.db);
    await setTenantStatus(db.db, x.tenantId, "inactive");
    const r = await call("GET", "/cards", { key: x.key });
    expect([r.status, r.body.code]).toEqual([403, "tenant_inactive"]);
    await setTenantStatus(db.db, x.tenantId, "active");
    expect((await call("GET", "/cards", { key: x.key })).status).toBe(200);
  });
});

describe("ip_not_allowed", () => {
  it.each([
    ["a single IPv4 address", ["203.0.113.7"], ["203.0.113.7", "::ffff:203.0.113.7"], ["203.0.113.8", "127.0.0.1"]],
    ["an IPv4 network", ["198.51.100.0/24"], ["198.51.100.1", "198.51.100.254"], ["198.51.101.1"]],
    ["an IPv6 address", ["2001:db8::7"], ["2001:db8:0:0::7"], ["2001:db8::8", "::1"]],
    ["an IPv6 network", ["2001:db8:aa00::/56"], ["2001:db8:aa00:ff::1"], ["2001:db8:ab00::1", "198.51.100.1"]],
  ])("admits callers inside %s and refuses others with 403", async (_name, list, inside, outside) => {
    const k = await extraKey({ ipAllowlist: list });
    for (const ip of inside) expect((await me(k.key, { ip })).status, ip).toBe(200);
    for (const ip of outside) {
      const r = await me(k.key, { ip });
      expect([r.status, r.body.code], ip).toEqual([403, "ip_not_allowed"]);
    }
  });

  it("refuses when the caller's address is unknown", async () => {
    const r = await me(t.key, { ip: null });
    expect([r.status, r.body.code]).toEqual([403, "ip_not_allowed"]);
  });

  it("admits any address when neither key nor integration has a list", async () => {
    const k = await extraKey({ ipAllowlist: [] });
    expect((await me(k.key, { ip: "192.0.2.44" })).status).toBe(200);
    expect((await me(k.key, { ip: "2001:db8::44" })).status).toBe(200);
    expect((await me(k.key)).body.key.ip_allowlist).toBeNull();
  });

  it("applies the integration's list too, on top of the key's", async () => {
    const x = await makeTenant(db.db, { integration: { ipAllowlist: ["203.0.113.0/24"] }, key: { ipAllowlist: [] } });
    expect((await me(x.key, { ip: "203.0.113.9" })).status).toBe(200);
    expect((await me(x.key, { ip: "198.51.100.9" })).body.code).toBe("ip_not_allowed");
    const narrower = await issueKey(db.db, { integrationId: x.integrationId, ipAllowlist: ["203.0.113.9"] });
    expect((await me(narrower.key, { ip: "203.0.113.9" })).status).toBe(200);
    expect((await me(narrower.key, { ip: "203.0.113.10" })).body.code).toBe("ip_not_allowed");
  });
});

describe("feature_not_in_plan", () => {
  it("answers 403 on every route, GET /me included, while the license lacks api_access", async () => {
    const x = await makeTenant(db.db);
    await setLicense(db.db, x.tenantId, { apiAccess: false });
    for (const path of ["/me", "/wallet", "/cards"]) {
      const r = await call("GET", path, { key: x.key });
      expect([r.status, r.body.code], path).toEqual([403, "feature_not_in_plan"]);
    }
    await setLicense(db.db, x.tenantId, { apiAccess: true });
    expect((await me(x.key)).status).toBe(200);
  });
});

describe("effective scopes", () => {
  it("are cut by the integration role: GET /me shows the set and other routes answer 403 scope_missing", async () => {
    const x = await makeTenant(db.db, { integration: { role: "read_only" } });
    expect((await me(x.key)).body.key.scopes).toEqual(SCOPES.filter((s) => s.endsWith(":read")));
    expect((await call("GET", "/cards", { key: x.key })).status).toBe(200);
    const w = await call("POST", "/cards", { key: x.key, json: { code: "a", name: "A" } });
    expect([w.status, w.body.code]).toEqual([403, "scope_missing"]);
    expect(w.body.detail).toContain("cards:write");
  });

  it("are cut by the license's features", async () => {
    const x = await makeTenant(db.db);
    await setLicense(db.db, x.tenantId, { features: ["crm"] });
    expect((await me(x.key)).body.key.scopes).toEqual(["leads:read", "leads:write", "leads:score", "webhooks:manage"]);
    const r = await call("GET", "/cards", { key: x.key });
    expect([r.status, r.body.code]).toEqual([403, "scope_missing"]);
    await setLicense(db.db, x.tenantId, { features: ["crm", "catalog"] });
    expect((await call("GET", "/cards", { key: x.key })).status).toBe(200);
  });

  it("follow the owner's current rights on every request", async () => {
    const o = await ownedIntegration(["view_personal_data"]);
    const scopes = (await me(o.key)).body.key.scopes;
    expect(scopes).toContain("leads:read");
    expect(scopes).not.toContain("webhooks:manage");
    const r = await call("GET", "/webhooks", { key: o.key });
    expect([r.status, r.body.code]).toEqual([403, "scope_missing"]);
    await setMembership(db.db, o.tenant.tenantId, o.staffId, { rights: ["manage_webhooks"] });
    const after = (await me(o.key)).body.key.scopes;
    expect(after).toContain("webhooks:manage");
    expect(
      after.filter((s: string) => s.startsWith("leads:") || s.startsWith("conversations:") || s === "ai_seller:invoke"),
    ).toEqual([]);
    expect((await call("GET", "/webhooks", { key: o.key })).status).toBe(200);
  });

  it("on the RU cell leave out personal-data scopes whose transfer rule fails, while such calls answer pii_transfer_not_allowed", async () => {
    const pii = (scopes: string[]) =>
      scopes.filter((s) => s.startsWith("leads:") || s.startsWith("conversations:") || s === "ai_seller:invoke");
    // The fixture's key: recipient RU, a legal basis and a single-address allowlist: every scope granted.
    expect(pii((await me(t.key)).body.key.scopes)).toEqual([
      "conversations:read",
      "conversations:write",
      "ai_seller:invoke",
      "leads:read",
      "leads:write",
      "leads:score",
    ]);

    const abroad = await makeTenant(db.db, { integration: { piiCountry: "DE" } });
    const shown = (await me(abroad.key)).body.key.scopes;
    expect(pii(shown)).toEqual([]);
    expect(shown).toContain("cards:read");
    const leads = await call("GET", "/leads", { key: abroad.key });
    expect([leads.status, leads.body.code]).toEqual([403, "pii_transfer_not_allowed"]);

    // Recipient RU, but a key that may call from anywhere: not a narrow allowlist, so not granted either.
    const wide = await issueKey(db.db, { integrationId: t.integrationId, ipAllowlist: ["0.0.0.0/0"] });
    expect(pii((await me(wide.key)).body.key.scopes)).toEqual([]);
    const convs = await call("GET", "/conversations", { key: wide.key });
    expect([convs.status, convs.body.code]).toEqual([403, "pii_transfer_not_allowed"]);
  });

  it("never include scopes the integration was not given", async () => {
    const x = await makeTenant(db.db, { scopes: ["cards:read"] });
    expect((await me(x.key)).body.key.scopes).toEqual(["cards:read"]);
  });
});

describe("last_used_at", () => {
  it("is stamped when a key is used", async () => {
    const k = await extraKey();
    const read = async () =>
      (await db.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.keyId, k.keyId)))[0].at;
    expect(await read()).toBeNull();
    const before = Date.now();
    expect((await me(k.key)).status).toBe(200);
    // The stamp is written off the request's path; wait for it.
    let at: Date | null = null;
    for (let i = 0; i < 100 && !at; i++) {
      at = await read();
      if (!at) await new Promise((r) => setTimeout(r, 20));
    }
    expect(at).toBeInstanceOf(Date);
    expect(Math.abs(at!.getTime() - before)).toBeLessThan(60_000);
  });

  it("is not stamped by a refused request", async () => {
    const k = await extraKey({ ipAllowlist: ["203.0.113.7"] });
    expect((await me(k.key, { ip: "198.51.100.1" })).status).toBe(403);
    await new Promise((r) => setTimeout(r, 100));
    const [row] = await db.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.keyId, k.keyId));
    expect(row.at).toBeNull();
  });
});
