import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "@/server/schemas/scopes";
import { ApiError } from "@/server/errors";
import { setIntegrationStatus } from "@/server/services/integrations/integrations";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// Integrations are editable after creation (issue 19 item 3): name, scopes, role, allowlist, recipient
// country and legal basis, with the creation checks, and a member never adds a scope their rights do not
// cover (every existing key would carry it at once).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const staff = (id: string) => ({ id, email: `${id}@x.example`, name: "S" });
let full: ReturnType<typeof staff>;
let integrationsOnly: ReturnType<typeof staff>;
const base = {
  name: "Renamed",
  role: "full",
  scopes: ["cards:read", "cards:write"] as (typeof SCOPES)[number][],
  piiCountry: null,
  legalBasis: null,
  ipAllowlist: null,
};

async function failure(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db, { scopes: ["cards:read"] });
  full = staff(
    await makeStaff(db.db, t.tenantId, [
      "manage_integrations",
      "manage_webhooks",
      "view_personal_data",
      "topup_wallet",
    ]),
  );
  integrationsOnly = staff(await makeStaff(db.db, t.tenantId, ["manage_integrations"]));
});
afterAll(async () => db.drop());

describe("integrations.update", () => {
  it("changes name and scopes, and the existing key's effective scopes follow on its next request", async () => {
    const before = await call("POST", "/cards", { key: t.key, json: { code: "a", name: "A" } });
    expect([before.status, before.body.code]).toEqual([403, "scope_missing"]);
    await createCaller({ db: db.db, staff: integrationsOnly }).integrations.update({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      ...base,
    });
    const got = await createCaller({ db: db.db, staff: integrationsOnly }).integrations.get({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
    });
    expect(got).toMatchObject({ name: "Renamed" });
    expect((await call("GET", "/me", { key: t.key })).body.key.scopes).toEqual(["cards:read", "cards:write"]);
    const after = await call("POST", "/cards", {
      key: t.key,
      json: { code: "a", name: "A" },
      idempotencyKey: crypto.randomUUID(),
    });
    expect(after.status).toBe(201);
  });

  it("refuses to add personal-data or webhook scopes the member's rights do not cover, and changes nothing", async () => {
    const err = await failure(
      createCaller({ db: db.db, staff: integrationsOnly }).integrations.update({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        ...base,
        name: "Should not stick",
        scopes: ["cards:read", "leads:read", "webhooks:manage"],
        piiCountry: "RU",
        legalBasis: "contract",
        ipAllowlist: ["203.0.113.10"],
      }),
    );
    expect(err.code).toBe("FORBIDDEN");
    expect(err.cause instanceof ApiError && err.cause.code).toBe("scope_missing");
    expect(err.message).toContain('"view_personal_data" (for leads:read)');
    expect(err.message).toContain('"manage_webhooks" (for webhooks:manage)');
    const got = await createCaller({ db: db.db, staff: full }).integrations.get({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
    });
    expect(got).toMatchObject({ name: "Renamed" });
  });

  it("applies the RU personal-data rule of creation: recipient RU, legal basis and a narrow allowlist", async () => {
    const err = await failure(
      createCaller({ db: db.db, staff: full }).integrations.update({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        ...base,
        scopes: ["cards:read", "leads:read"],
        piiCountry: "DE",
        legalBasis: null,
        ipAllowlist: ["0.0.0.0/0"],
      }),
    );
    expect(err.cause instanceof ApiError && err.cause.extras.errors?.map((e) => e.field).sort()).toEqual([
      "/ip_allowlist",
      "/legal_basis",
      "/pii_country",
    ]);
    await createCaller({ db: db.db, staff: full }).integrations.update({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      ...base,
      scopes: ["cards:read", "leads:read"],
      piiCountry: "RU",
      legalBasis: "contract",
      ipAllowlist: ["127.0.0.1"],
    });
    expect((await call("GET", "/leads", { key: t.key })).status).toBe(200);
  });

  it("lets a member keep a personal-data scope they could not add, and refuses a revoked or foreign integration", async () => {
    await createCaller({ db: db.db, staff: integrationsOnly }).integrations.update({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      ...base,
      name: "Kept",
      scopes: ["cards:read", "leads:read"],
      piiCountry: "RU",
      legalBasis: "contract",
      ipAllowlist: ["127.0.0.1"],
    });
    const other = await makeTenant(db.db);
    const foreign = await failure(
      createCaller({ db: db.db, staff: full }).integrations.update({
        tenantId: t.tenantId,
        integrationId: other.integrationId,
        ...base,
      }),
    );
    expect(foreign.code).toBe("NOT_FOUND");
    await setIntegrationStatus(db.db, t.integrationId, "revoked", t.tenantId);
    const revoked = await failure(
      createCaller({ db: db.db, staff: full }).integrations.update({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        ...base,
      }),
    );
    expect(revoked.cause instanceof ApiError && revoked.cause.code).toBe("invalid_state");
  });
});
