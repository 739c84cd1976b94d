import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { createAuth } from "@/server/auth/auth";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { serveRoutes, type RouteServer } from "@/server/testing/route-server";
import { openTestDatabase } from "@/server/testing/test-db";

// Issue 76 item 5: the console opened at 127.0.0.1:PORT could not write, because the door compared the
// page's Origin with the request URL, which Next.js builds from the host name it was started with
// (`localhost`, server/http-server.ts). The server here hands the route handlers the URL Next.js would
// (http://localhost:3000/...) while the client reaches it at 127.0.0.1:<port>, as a browser would.

const NEXT_URL = "http://localhost:3000";
const CELL_ORIGIN = "https://api.example.ru"; // the test environment's configured origin
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let server: RouteServer;
let own: string;

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db);
  await createStaffMember(db.db, {
    tenantId: a.tenantId,
    email: "owner@origin.example",
    password: "correct-horse-battery",
    name: "O",
  });
  server = await serveRoutes(NEXT_URL, (method, path) =>
    path.startsWith("/api/trpc/") ? (method === "GET" ? trpcGet : trpcPost) : undefined,
  );
  own = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
  await db.drop();
});

async function signIn(): Promise<string> {
  const res = await createAuth(db.db).api.signInEmail({
    body: { email: "owner@origin.example", password: "correct-horse-battery" },
    asResponse: true,
  });
  return (res.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
}

/** Creates an integration through the console's door, as the page at `origin` would. */
async function createIntegration(cookie: string, origin: string | null, name: string) {
  const headers: Record<string, string> = { cookie, "content-type": "application/json" };
  if (origin !== null) headers.origin = origin;
  const r = await server.send("POST", "/api/trpc/integrations.create", {
    headers,
    body: JSON.stringify({
      tenantId: a.tenantId,
      name,
      role: "full",
      scopes: ["cards:read"],
      piiCountry: null,
      legalBasis: null,
      ipAllowlist: null,
    }),
  });
  return { status: r.status, body: JSON.parse(r.text) as { result?: unknown; error?: { data: { code: string } } } };
}

/** Names of the tenant's integrations, read through the door. */
async function integrationNames(cookie: string): Promise<string[]> {
  const input = encodeURIComponent(JSON.stringify({ tenantId: a.tenantId }));
  const r = await server.send("GET", `/api/trpc/integrations.list?input=${input}`, { headers: { cookie } });
  const list = (JSON.parse(r.text) as { result: { data: { name: string }[] } }).result.data;
  return list.map((i) => i.name);
}

describe("console writes from the page's own origin (tRPC door)", () => {
  it("accepts a write from the page opened at 127.0.0.1:PORT", async () => {
    const cookie = await signIn();
    const r = await createIntegration(cookie, own, "From 127.0.0.1");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await integrationNames(cookie)).toContain("From 127.0.0.1");
  });

  it("still accepts the cell's configured origin (behind a TLS-terminating proxy)", async () => {
    const cookie = await signIn();
    expect((await createIntegration(cookie, CELL_ORIGIN, "From the cell origin")).status).toBe(200);
  });

  it.each([
    ["another site", "https://evil.example"],
    ["another port of the same host", "http://127.0.0.1:1"],
    ["the same host over another scheme", "https://127.0.0.1:PORT"],
    ["the host name Next.js was started with, not the one the page was reached by", NEXT_URL],
    ["an opaque origin", "null"],
    ["no Origin at all", null],
  ])("refuses a write from %s (403, nothing written)", async (_name, origin) => {
    const cookie = await signIn();
    const name = `Refused ${Math.random()}`;
    const r = await createIntegration(cookie, origin?.replace("PORT", String(server.port)) ?? null, name);
    expect([r.status, r.body.error?.data.code]).toEqual([403, "bad_request"]);
    expect(await integrationNames(cookie)).not.toContain(name);
  });
});
