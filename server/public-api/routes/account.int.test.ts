import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

describe("GET /me", () => {
  it("answers the key, tenant, scopes, limits and wallet", async () => {
    const r = await call("GET", "/me", { key: t.key });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(r.body.tenant.id).toBe(t.tenantId);
    expect(r.body.key.key_id).toBe(t.keyId);
    expect(r.body.base_url).toBe("https://api.example.ru/api/public/v1");
  });
});
