import { describe, expect, it } from "vitest";
import { ApiError } from "@/server/errors";
import { assertPiiTransferAllowed, ruPersonalDataRuleApplies, type TransferFacts } from "./pii-transfer";
import { FEATURE_NAMES, FEATURES, isScope, PII_SCOPES, ROLES, SCOPES } from "@/server/schemas/scopes";
import { effectiveScopes, explainScopes, rightsMissingToChange, type ScopeInputs } from "./scopes";

// Effective scopes (spec "Authentication" 5-7): integration scopes ∩ role ∩ owner's current rights ∩
// license. GET /me shows exactly this set and the pipeline enforces it.

const ALL = [...SCOPES];
const base: ScopeInputs = {
  integrationScopes: ALL,
  role: "full",
  ownerRights: null,
  licenseFeatures: [...FEATURE_NAMES],
};
const eff = (patch: Partial<ScopeInputs>) => effectiveScopes({ ...base, ...patch });

describe("effectiveScopes", () => {
  it("grants everything asked for with role full, no owner and a full license", () => {
    expect(eff({})).toEqual(ALL);
  });

  it("never grants a scope the integration was not given, and drops unknown strings", () => {
    expect(eff({ integrationScopes: ["cards:read", "leads:read", "admin:all", "cards:read"] })).toEqual([
      "leads:read",
      "cards:read",
    ]);
    expect(eff({ integrationScopes: [] })).toEqual([]);
  });

  it("keeps the result in the order of SCOPES whatever the input order", () => {
    expect(eff({ integrationScopes: ["webhooks:manage", "conversations:read"] })).toEqual([
      "conversations:read",
      "webhooks:manage",
    ]);
  });

  it("cuts by role", () => {
    expect(eff({ role: "read_only" })).toEqual(ALL.filter((s) => s.endsWith(":read")));
    expect(eff({ role: "sales" })).toEqual(ALL.filter((s) => (ROLES.sales as readonly string[]).includes(s)));
    expect(eff({ role: "content" })).not.toContain("leads:read");
    expect(eff({ role: "content" })).toContain("articles:generate");
    expect(eff({ role: "no-such-role" })).toEqual([]);
  });

  it("cuts by license features; webhooks:manage needs only API access", () => {
    expect(eff({ licenseFeatures: [] })).toEqual(["webhooks:manage"]);
    expect(eff({ licenseFeatures: ["catalog"] })).toEqual(["webhooks:manage", "cards:read", "cards:write"]);
    expect(eff({ licenseFeatures: ["crm", "unknown-feature"] })).toEqual([
      "leads:read",
      "leads:write",
      "leads:score",
      "webhooks:manage",
    ]);
    for (const f of FEATURE_NAMES) for (const s of FEATURES[f]) expect(eff({ licenseFeatures: [f] })).toContain(s);
  });

  it("cuts personal-data scopes when the owner lacks view_personal_data, and webhooks:manage without manage_webhooks", () => {
    const none = eff({ ownerRights: [] });
    expect(none.filter((s) => PII_SCOPES.has(s))).toEqual([]);
    expect(none).not.toContain("webhooks:manage");
    expect(none).toContain("cards:write");
    expect(none).toContain("articles:generate");
    const pd = eff({ ownerRights: ["view_personal_data"] });
    expect(pd).toEqual(ALL.filter((s) => s !== "webhooks:manage"));
    expect(eff({ ownerRights: ["view_personal_data", "manage_webhooks"] })).toEqual(ALL);
  });

  it("applies every cut at once (intersection)", () => {
    expect(
      effectiveScopes({
        integrationScopes: ["leads:read", "leads:write", "cards:read", "articles:read", "webhooks:manage"],
        role: "sales",
        ownerRights: ["manage_webhooks"],
        licenseFeatures: ["crm", "articles"],
      }),
    ).toEqual(["webhooks:manage"]);
  });

  it("cuts a key by its issuer's current rights as it cuts by the owner's (issue 76 item 1)", () => {
    expect(eff({ issuerRights: [] })).toEqual(eff({ ownerRights: [] }));
    expect(eff({ issuerRights: ["view_personal_data"] })).toEqual(ALL.filter((s) => s !== "webhooks:manage"));
    expect(eff({ issuerRights: null })).toEqual(ALL);
    // both cuts apply: an owner with every right does not lend it to an issuer without it
    expect(
      eff({ ownerRights: ["view_personal_data", "manage_webhooks"], issuerRights: ["manage_webhooks"] }).filter((s) =>
        PII_SCOPES.has(s),
      ),
    ).toEqual([]);
  });

  it("treats PII_SCOPES as the spec's personal-data scopes: conversations:*, leads:*, ai_seller:invoke", () => {
    expect([...PII_SCOPES].sort()).toEqual(
      ALL.filter((s) => s.startsWith("conversations:") || s.startsWith("leads:") || s === "ai_seller:invoke").sort(),
    );
  });
});

describe("isScope", () => {
  it("accepts the spec's scopes plus cards:* only", () => {
    expect(SCOPES).toHaveLength(18);
    expect(isScope("cards:write")).toBe(true);
    expect(isScope("Cards:write")).toBe(false);
    expect(isScope("cards:*")).toBe(false);
  });
});

describe('RU personal-data transfer rule (spec "Authentication" 7)', () => {
  type Caller = TransferFacts;
  const caller = (country: string | null, legalBasis: string | null, ipAllowlist: string[] | null): Caller => ({
    country,
    legalBasis,
    ipAllowlist,
  });
  const refused = (c: Caller) => {
    try {
      assertPiiTransferAllowed("ru", c);
    } catch (e) {
      return e instanceof ApiError ? [e.status, e.code] : e;
    }
    return null;
  };

  it("allows a recipient in RU with a legal basis and a narrow allowlist", () => {
    expect(refused(caller("RU", "contract", ["203.0.113.0/24", "2001:db8::/56"]))).toBeNull();
  });

  it.each([
    ["recipient in another country", caller("DE", "contract", ["203.0.113.7"])],
    ["no recipient country", caller(null, "contract", ["203.0.113.7"])],
    ["no legal basis", caller("RU", null, ["203.0.113.7"])],
    ["no allowlist", caller("RU", "contract", null)],
    ["empty allowlist", caller("RU", "contract", [])],
    ["IPv4 network wider than /24", caller("RU", "contract", ["203.0.112.0/23"])],
    ["IPv6 network wider than /56", caller("RU", "contract", ["2001:db8::/48"])],
  ])("refuses with 403 pii_transfer_not_allowed: %s", (_name, c) => {
    expect(refused(c)).toEqual([403, "pii_transfer_not_allowed"]);
  });
});

describe("RU personal-data transfer rule outside the RU cell", () => {
  it.each(["en", "id"] as const)("does not apply to tenants of the %s cell", (cell) => {
    expect(() => assertPiiTransferAllowed(cell, { country: "DE", legalBasis: null, ipAllowlist: null })).not.toThrow();
  });
});

describe("when the RU personal-data rule is in force: by the tenant's cell, whatever the process's CELL", () => {
  it("applies to RU tenants only", () => {
    expect(["ru", "en", "id"].map((cell) => ruPersonalDataRuleApplies({ cell }))).toEqual([true, false, false]);
  });
});

describe("explainScopes", () => {
  const explain = (patch: Partial<ScopeInputs>) => explainScopes({ ...base, ...patch });

  it("names the first cut for each scope not granted: role, then plan, then the owner's rights", () => {
    const verdicts = explain({
      integrationScopes: ["cards:read", "cards:write", "leads:read", "webhooks:manage", "articles:read"],
      role: "read_only",
      ownerRights: ["view_personal_data"],
      licenseFeatures: ["catalog", "crm"],
    });
    expect(verdicts).toEqual([
      { scope: "leads:read", granted: true, reason: null },
      { scope: "articles:read", granted: false, reason: 'the plan does not include the "articles" feature' },
      { scope: "webhooks:manage", granted: false, reason: 'the role "read_only" does not allow it' },
      { scope: "cards:read", granted: true, reason: null },
      { scope: "cards:write", granted: false, reason: 'the role "read_only" does not allow it' },
    ]);
    expect(explain({ integrationScopes: ["webhooks:manage"], ownerRights: [] })).toEqual([
      { scope: "webhooks:manage", granted: false, reason: `the integration's owner lacks the "manage_webhooks" right` },
    ]);
  });

  it("names the key's issuer when only the issuer's rights cut a scope, the owner first when both do", () => {
    expect(explain({ integrationScopes: ["leads:read", "cards:read"], issuerRights: [] })).toEqual([
      { scope: "leads:read", granted: false, reason: `the key's issuer lacks the "view_personal_data" right` },
      { scope: "cards:read", granted: true, reason: null },
    ]);
    expect(explain({ integrationScopes: ["leads:read"], ownerRights: [], issuerRights: [] })).toEqual([
      { scope: "leads:read", granted: false, reason: `the integration's owner lacks the "view_personal_data" right` },
    ]);
  });

  it("agrees with effectiveScopes on every role, license, owner and issuer", () => {
    const rightSets = [null, [], ["view_personal_data"], ["manage_webhooks"]];
    for (const role of Object.keys(ROLES))
      for (const licenseFeatures of [[...FEATURE_NAMES], ["catalog"], []])
        for (const ownerRights of rightSets)
          for (const issuerRights of rightSets) {
            const i = { ...base, role, licenseFeatures, ownerRights, issuerRights };
            expect(
              explainScopes(i)
                .filter((v) => v.granted)
                .map((v) => v.scope),
            ).toEqual(effectiveScopes(i));
          }
  });
});

describe("rightsMissingToChange (issue 76 item 1)", () => {
  const content = eff({ role: "content" });
  const full = eff({});

  it("lets any member make a change that widens nothing: rename, narrow, suspend, revoke", () => {
    expect(rightsMissingToChange(full, full, [])).toEqual([]);
    expect(rightsMissingToChange(full, content, [])).toEqual([]);
    expect(rightsMissingToChange(full, [], [])).toEqual([]);
  });

  it("needs the rights for every scope after a widening change, not only the added ones", () => {
    // the detour of the issue: the role back to full from content
    expect(rightsMissingToChange(content, full, ["manage_webhooks"])).toEqual([
      { right: "view_personal_data", scopes: ALL.filter((s) => PII_SCOPES.has(s)) },
    ]);
    // reactivating (nothing effective while suspended) needs the rights of everything the keys get again
    expect(rightsMissingToChange([], ["leads:read", "webhooks:manage"], [])).toEqual([
      { right: "view_personal_data", scopes: ["leads:read"] },
      { right: "manage_webhooks", scopes: ["webhooks:manage"] },
    ]);
    // a widening by a scope that needs no right still needs the rights of what the keys hold after it
    expect(rightsMissingToChange(["leads:read"], ["leads:read", "cards:read"], [])).toEqual([
      { right: "view_personal_data", scopes: ["leads:read"] },
    ]);
    expect(rightsMissingToChange(content, full, ["view_personal_data", "manage_webhooks"])).toEqual([]);
  });
});
