import { readFileSync } from "node:fs";
import { expect, test } from "./validated-request";

// Addresses around the API over real HTTP (Next.js routing, not only the pipeline): every path under
// /api/ that is no route answers problem+json, and a trailing slash is answered by the API itself (a 404
// naming the address meant), not by Next.js's relative 308 that clients without redirects, or a POST,
// would not follow.

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

test("a trailing slash is no route: a problem+json 404 that names the address meant, never a redirect", async ({
  request,
}) => {
  const headers = { authorization: `Bearer ${key()}` };
  for (const [method, path, meant] of [
    ["GET", "/api/public/v1/cards/?limit=5", "GET /cards"],
    ["POST", "/api/public/v1/cards/", "POST /cards"],
    ["GET", "/api/public/v1/cards/some-code/", "GET /cards/some-code"],
    ["DELETE", "/api/public/v1/cards/some-code/", "DELETE /cards/some-code"],
  ] as const) {
    const r = await request.fetch(path, {
      method,
      headers: { ...headers, "idempotency-key": crypto.randomUUID(), "content-type": "application/json" },
      data: method === "POST" ? { code: `slash-${Date.now()}`, name: "Slash" } : undefined,
      maxRedirects: 0,
    });
    expect(r.status(), path).toBe(404);
    expect(r.headers()["location"], path).toBeUndefined();
    expect(r.headers()["content-type"], path).toBe("application/problem+json");
    const body = await r.json();
    expect(body.code, path).toBe("not_found");
    expect(body.detail, path).toContain(`no trailing slash; use ${meant}.`);
  }
  // Nothing was made through the slashed POST, and the exact address works.
  expect((await request.get("/api/public/v1/cards?limit=5", { headers, maxRedirects: 0 })).status()).toBe(200);
});
