import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { expect, test } from "./validated-request";

// The README's promise, over real HTTP: the demo serves, its key works from curl-like clients, cards
// can be created, listed, changed and deleted, errors are problem+json, and the operator CLI changes
// the running app's embedded database. Every public API answer is checked against the served OpenAPI
// document (./validated-request).

const demo = () =>
  JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as { apiKey: string; tenantId: string; baseUrl: string };
const run = promisify(execFile);

test("GET /me answers with the demo key", async ({ request }) => {
  const { apiKey, tenantId } = demo();
  const r = await request.get("/api/public/v1/me", { headers: { authorization: `Bearer ${apiKey}` } });
  expect(r.status()).toBe(200);
  expect(r.headers()["x-request-id"]).toMatch(/^req_/);
  const me = await r.json();
  expect(me.tenant.id).toBe(tenantId);
  expect(me.key.scopes).toContain("cards:write");
  expect(me.wallet.state).toBe("ok");
});

test("cards round trip over HTTP", async ({ request }) => {
  const headers = { authorization: `Bearer ${demo().apiKey}` };
  const code = `e2e-${Date.now()}`;
  const c = await request.post("/api/public/v1/cards", {
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    data: { code, name: "E2E", page_url: "/p/e2e" },
  });
  expect(c.status()).toBe(201);
  expect((await c.json()).page_url).toBe("https://demo-shop.example/p/e2e");
  const list = await (await request.get("/api/public/v1/cards?limit=100", { headers })).json();
  expect(list.data.map((x: { code: string }) => x.code)).toContain(code);
  const p = await request.patch(`/api/public/v1/cards/${code}`, { headers, data: { badge: "Hit" } });
  expect((await p.json()).badge).toBe("Hit");
  expect((await request.delete(`/api/public/v1/cards/${code}`, { headers })).status()).toBe(204);
  expect((await request.delete(`/api/public/v1/cards/${code}`, { headers })).status()).toBe(404);
});

test("errors are problem+json", async ({ request }) => {
  const bad = await request.get("/api/public/v1/me", { headers: { authorization: "Bearer sk_live_ru_nope" } });
  expect(bad.status()).toBe(401);
  expect(bad.headers()["content-type"]).toBe("application/problem+json");
  expect((await bad.json()).code).toBe("invalid_api_key");
  const planned = await request.post("/api/public/v1/conversations", {
    headers: { authorization: `Bearer ${demo().apiKey}` },
    data: {},
  });
  expect(planned.status()).toBe(404);
});

test("the operator CLI works on the running app's embedded database", async ({ request }) => {
  const { apiKey, tenantId } = demo();
  const env = { ...process.env, PGLITE_DIR: ".data/e2e/pglite", DATABASE_URL: "" };
  const headers = { authorization: `Bearer ${apiKey}` };
  const before = await (await request.get("/api/public/v1/wallet", { headers })).json();
  const { stdout } = await run("npx", ["tsx", "scripts/admin.ts", "wallet:block", "--tenant", tenantId, "--json"], {
    env,
  });
  expect(JSON.parse(stdout)).toMatchObject({ tenant_id: tenantId, blocked: true });
  const blocked = await request.get("/api/public/v1/cards", { headers });
  expect(blocked.status()).toBe(402);
  expect((await blocked.json()).code).toBe("wallet_suspended");
  await run("npx", ["tsx", "scripts/admin.ts", "wallet:unblock", "--tenant", tenantId, "--json"], { env });
  const after = await (await request.get("/api/public/v1/wallet", { headers })).json();
  expect(after).toEqual(before);
});
