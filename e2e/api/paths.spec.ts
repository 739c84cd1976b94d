import { readFileSync } from "node:fs";
import { expect, test } from "./validated-request";

// Addresses around the API over real HTTP (Next.js routing, not only the pipeline): every path under
// /api/ that is no route answers problem+json, and a trailing slash reaches the same route without a
// redirect (a relative 308 that clients without redirects, or with a POST, would not follow).

const key = () => (JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as { apiKey: string }).apiKey;

test("paths under /api/ that are no route answer a problem+json 404, not an HTML page", async ({ request }) => {
  for (const path of ["/api", "/api/", "/api/nope", "/api/public/v2/me", "/api/health/x", "/api/public/v1/nope"]) {
    const r = await request.get(path, { headers: { authorization: `Bearer ${key()}` }, maxRedirects: 0 });
    expect(r.status(), path).toBe(404);
    expect(r.headers()["content-type"], path).toBe("application/problem+json");
    const body = await r.json();
    expect(body, path).toMatchObject({ status: 404, code: "not_found", title: "Not found" });
    expect(body.request_id, path).toBe(r.headers()["x-request-id"]);
  }
});

test("a trailing slash reaches the same route, with no redirect", async ({ request }) => {
  const headers = { authorization: `Bearer ${key()}` };
  const plain = await request.get("/api/public/v1/cards?limit=5", { headers, maxRedirects: 0 });
  const slash = await request.get("/api/public/v1/cards/?limit=5", { headers, maxRedirects: 0 });
  expect(slash.status()).toBe(200);
  expect(slash.headers()["location"]).toBeUndefined();
  expect((await slash.json()).data).toEqual((await plain.json()).data);
  const code = `slash-${Date.now()}`;
  const created = await request.post("/api/public/v1/cards/", {
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    data: { code, name: "Slash" },
    maxRedirects: 0,
  });
  expect(created.status()).toBe(201);
  expect((await request.get(`/api/public/v1/cards/${code}/`, { headers, maxRedirects: 0 })).status()).toBe(200);
  expect((await request.delete(`/api/public/v1/cards/${code}/`, { headers, maxRedirects: 0 })).status()).toBe(204);
});
