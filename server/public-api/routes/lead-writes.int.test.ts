import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversations, disclosures, events, leadChanges, wallets, walletLedger } from "@/db/schema";
import { setCrmMode } from "@/server/services/leads/crm-settings";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { createClient, isApiError } from "@platform/sdk";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { call, inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

// The `leads-writes` preview (issue 70): lead writes under If-Match, paid scoring, the CRM status map and
// the disclosure journal; every route answers the Planned 404 without the flag. Runs on PGlite and, with
// DATABASE_URL, on PostgreSQL (where the 50-writer race runs too).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "leads-writes" as const };
const idem = () => `lw-${++n}-${Date.now()}`;

const create = (key: string, json: unknown, idempotencyKey = idem()) =>
  call("POST", "/leads", { key, json, idempotencyKey, ...P });
const patch = (key: string, id: string, json: unknown, ifMatch?: string) =>
  call("PATCH", `/leads/${id}`, { key, json, headers: ifMatch === undefined ? {} : { "if-match": ifMatch }, ...P });
const score = (key: string, id: string, idempotencyKey = idem()) =>
  call("POST", `/leads/${id}/score`, { key, idempotencyKey, ...P });
const eventsOf = (tenantId: string, type: string) =>
  db.db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));
const liveWallet = async (tenantId: string) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, true)))
  )[0]!;

async function leadsTenant(opts: Parameters<typeof makeTenant>[1] = {}): Promise<TenantFixture> {
  const x = await makeTenant(db.db, opts);
  await setPreview(db.db, x.tenantId, "leads-writes", true);
  await setLimitOverride(db.db, { keyId: x.keyId }, { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 });
  return x;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await leadsTenant();
});
afterAll(async () => db.drop());

describe("without the preview", () => {
  it("answers every route with the Planned 404", async () => {
    const off = await makeTenant(db.db);
    const id = crypto.randomUUID();
    for (const [method, path] of [
      ["POST", "/leads"],
      ["PATCH", `/leads/${id}`],
      ["POST", `/leads/${id}/score`],
      ["GET", "/crm/status-map"],
      ["PUT", "/crm/status-map"],
      ["GET", "/disclosures"],
    ] as const) {
      const r = await call(method, path, {
        key: off.key,
        json: method === "GET" ? undefined : {},
        idempotencyKey: method === "POST" || method === "PATCH" ? idem() : undefined,
      });
      expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, "not_found"]);
    }
  });

  it("lists the routes only in the preview's OpenAPI document, with If-Match and the scoring price", async () => {
    const get = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as {
        paths: Record<string, Record<string, { description?: string; parameters?: { name?: string }[] }>>;
      };
    const base = await get("");
    const preview = await get("?preview=leads-writes");
    expect(base.paths["/leads"]?.post).toBeUndefined();
    expect(base.paths["/leads/{id}"]?.patch).toBeUndefined();
    for (const p of ["/leads/{id}/score", "/crm/status-map", "/disclosures"]) expect(base.paths[p]).toBeUndefined();
    expect(preview.paths["/leads"]?.post).toBeDefined();
    expect(preview.paths["/crm/status-map"]?.put).toBeDefined();
    expect(preview.paths["/disclosures"]?.get).toBeDefined();
    expect(JSON.stringify(preview.paths["/leads/{id}"]?.patch?.parameters)).toContain("IfMatch");
    expect(preview.paths["/leads/{id}/score"]?.post?.description).toContain("2.00 RUB");
  });
});

describe("POST /leads and PATCH /leads/{id}", () => {
  it("creates a lead with its ETag, reuses a contact by email or phone, checks the conversation", async () => {
    expect((await call("POST", "/leads", { key: t.key, json: { title: "x" }, ...P })).body.code).toBe(
      "idempotency_key_required",
    );
    const a = await create(t.key, {
      title: "Sofa for the office",
      source: "referral",
      value: { amount: "1500.50", currency: "RUB" },
      contact: { first_name: "Anna", email: "Anna@Example.com", tags: ["b2b"] },
      attribution: { utm_source: "newsletter" },
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.headers.get("etag")).toBe(a.body.etag);
    expect(a.body).toMatchObject({ version: 1, status: "new", owner: "internal", value: { amount: "1500.50" } });
    expect(a.body.attribution.utm_source).toBe("newsletter");
    const b = await create(t.key, { title: "Second", contact: { email: "anna@example.com", phone: "+7 900 1" } });
    expect(b.body.contact.id).toBe(a.body.contact.id);
    expect(b.body.contact.phone).toBe("+7 900 1");
    const c = await create(t.key, { title: "Third", contact: { phone: "+79001" } });
    expect(c.body.contact.id).toBe(a.body.contact.id);
    const foreign = await makeTenant(db.db);
    const [conv] = await db.db
      .insert(conversations)
      .values({ tenantId: foreign.tenantId, channelType: "api" })
      .returning({ id: conversations.id });
    const bad = await create(t.key, { title: "Foreign", conversation_id: conv!.id });
    expect([bad.status, bad.body.errors[0].field]).toEqual([422, "/conversation_id"]);
    const [created] = (await eventsOf(t.tenantId, "lead.created")).filter((e) => e.data.lead_id === a.body.id);
    expect(created!.data).toMatchObject({ contact_id: a.body.contact.id, version: 1 });
    const replay = await call("POST", "/leads", { key: t.key, json: { title: "R" }, idempotencyKey: "same-r", ...P });
    const again = await call("POST", "/leads", { key: t.key, json: { title: "R" }, idempotencyKey: "same-r", ...P });
    expect(again.body.id).toBe(replay.body.id);
  });

  it("changes a lead under If-Match only: 428, 400, 412 with the current etag, 200 with the new one", async () => {
    const a = (await create(t.key, { title: "Chairs" })).body;
    const read = await call("GET", `/leads/${a.id}`, { key: t.key });
    expect(read.headers.get("etag")).toBe(a.etag);
    expect((await patch(t.key, a.id, { title: "x" })).status).toBe(428);
    expect((await patch(t.key, a.id, { title: "x" }, "not-a-tag")).body.code).toBe("bad_request");
    expect((await patch(t.key, a.id, { title: "x" }, "*")).status).toBe(400);
    const stale = await patch(t.key, a.id, { title: "x" }, '"0-stale"');
    expect([stale.status, stale.body.code, stale.body.etag]).toEqual([412, "precondition_failed", a.etag]);
    const ok = await patch(t.key, a.id, { title: "Chairs, 12", status: "qualified", next_action: "call" }, a.etag);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ version: 2, title: "Chairs, 12", status: "qualified", next_action: "call" });
    expect(ok.body.qualified_at).not.toBeNull();
    expect(ok.headers.get("etag")).toBe(ok.body.etag);
    expect(ok.body.etag).not.toBe(a.etag);
    expect((await patch(t.key, a.id, { title: "y" }, a.etag)).status).toBe(412);
    const [updated] = (await eventsOf(t.tenantId, "lead.updated")).filter((e) => e.data.lead_id === a.id);
    expect(updated!.data).toEqual({ lead_id: a.id, version: 2, changed_fields: ["title", "next_action", "status"] });
    const [moved] = (await eventsOf(t.tenantId, "lead.status_changed")).filter((e) => e.data.lead_id === a.id);
    expect(moved!.data).toMatchObject({ from: "new", to: "qualified", version: 2 });
    const lost = await patch(t.key, a.id, { status: "lost" }, ok.body.etag);
    expect([lost.status, lost.body.errors?.[0]?.field]).toEqual([422, "/lost_reason"]);
    const same = await patch(t.key, a.id, { title: "Chairs, 12" }, ok.body.etag);
    expect([same.status, same.body.version]).toEqual([200, 2]);
    const contact = await patch(t.key, a.id, { contact: { first_name: "Ivan" } }, ok.body.etag);
    expect([contact.body.version, contact.body.contact.first_name]).toEqual([3, "Ivan"]);
    const timeline = await db.db.select().from(leadChanges).where(eq(leadChanges.leadId, a.id));
    expect(timeline.map((c) => c.version).sort()).toEqual([1, 2, 3]);
  });

  it("refuses status changes while the tenant's CRM is external; leads then carry owner external", async () => {
    const x = await leadsTenant();
    const a = (await create(x.key, { title: "External" })).body;
    expect(await setCrmMode(db.db, x.tenantId, "external")).toMatchObject({ crm_mode: "external", changed: true });
    const read = (await call("GET", `/leads/${a.id}`, { key: x.key })).body;
    expect([read.owner, read.version]).toEqual(["external", 2]);
    const r = await patch(x.key, a.id, { status: "won" }, read.etag);
    expect([r.status, r.body.code]).toEqual([409, "invalid_state"]);
    expect((await patch(x.key, a.id, { next_action: "wait" }, read.etag)).status).toBe(200);
    expect((await call("GET", "/me", { key: x.key })).body.crm_mode).toBe("external");
    expect((await eventsOf(x.tenantId, "crm.mode_changed"))[0]!.data).toEqual({
      crm_mode: "external",
      previous: "internal",
    });
  });

  it.runIf(Boolean(process.env.DATABASE_URL))(
    "50 parallel writers with the same If-Match: exactly one 200, 49 × 412",
    async () => {
      const a = (await create(t.key, { title: "Race" })).body;
      const all = await Promise.all(
        Array.from({ length: 50 }, (_, i) => patch(t.key, a.id, { title: `Writer ${i}` }, a.etag)),
      );
      const statuses = all.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(49);
      const after = (await call("GET", `/leads/${a.id}`, { key: t.key })).body;
      expect(after.version).toBe(2);
      expect(all.filter((r) => r.status === 412).every((r) => r.body.etag === after.etag)).toBe(true);
    },
    60_000,
  );
});

describe("POST /leads/{id}/score", () => {
  it("charges 2.00 RUB once, a replay answers the same score for nothing; lead.scored; version grows", async () => {
    const a = (
      await create(t.key, {
        title: "Please send an invoice, we want to buy 20 chairs",
        source: "referral",
        value: { amount: "90000.00", currency: "RUB" },
        contact: { first_name: "Olga", email: "olga@example.com", phone: "+7 901 000 00 00", geo_city: "Kazan" },
      })
    ).body;
    const before = await liveWallet(t.tenantId);
    const key = idem();
    const r = await score(t.key, a.id, key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.usage).toEqual({ cost: { amount: "2.00", currency: "RUB" }, model: "lead-score-1.0" });
    expect(r.body.score).toMatchObject({ source: "platform", model: "lead-score-1.0", flags: ["buy_intent"] });
    expect(r.body.score.grade).toMatch(/^[A-D]$/);
    expect((await liveWallet(t.tenantId)).balanceMinor).toBe(before.balanceMinor - 200n);
    const replay = await score(t.key, a.id, key);
    expect(replay.body).toEqual(r.body);
    const after = await liveWallet(t.tenantId);
    expect([after.balanceMinor, after.heldMinor]).toEqual([before.balanceMinor - 200n, before.heldMinor]);
    const charges = await db.db
      .select()
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.kind, "charge")));
    expect(charges).toHaveLength(1);
    const lead = (await call("GET", `/leads/${a.id}`, { key: t.key })).body;
    expect(lead.version).toBe(2);
    expect(lead.score).toEqual(r.body.score);
    expect(lead.flags).toEqual({ buy_intent: true, support: false, supplier: false });
    const [scored] = await eventsOf(t.tenantId, "lead.scored");
    expect(scored!.data).toMatchObject({
      lead_id: a.id,
      version: 2,
      score: r.body.score.score,
      level: lead.score.grade,
    });
  });

  it("402 insufficient_funds without money; 429 past the paid rate; nothing charged", async () => {
    const poor = await leadsTenant({ balanceMinor: 100n });
    const a = (await create(poor.key, { title: "Poor" })).body;
    await setLimitOverride(db.db, { keyId: poor.keyId }, { paidPerMin: 1 });
    const r = await score(poor.key, a.id);
    expect([r.status, r.body.code]).toEqual([402, "insufficient_funds"]);
    expect((await liveWallet(poor.tenantId)).heldMinor).toBe(0n);
    const limited = await score(poor.key, a.id);
    expect([limited.status, limited.body.code]).toEqual([429, "rate_limited"]);
  });
});

describe("CRM status map and disclosures", () => {
  it("replaces and reads the status map; 422 on an unknown canonical status or over 200 entries", async () => {
    const map = { "In progress": "qualified", Paid: "won" };
    const put = await call("PUT", "/crm/status-map", { key: t.key, json: { map }, ...P });
    expect([put.status, put.body.map]).toEqual([200, map]);
    expect((await call("GET", "/crm/status-map", { key: t.key, ...P })).body.map).toEqual(map);
    const bad = await call("PUT", "/crm/status-map", { key: t.key, json: { map: { X: "archived" } }, ...P });
    expect([bad.status, bad.body.errors[0].field]).toEqual([422, "/map/X"]);
    const big = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`s${i}`, "new"]));
    expect((await call("PUT", "/crm/status-map", { key: t.key, json: { map: big }, ...P })).status).toBe(422);
  });

  it("lists the integration's journal newest first, pages by cursor, writes no row for itself", async () => {
    const x = await leadsTenant();
    const a = (await create(x.key, { title: "Journal" })).body;
    await call("GET", `/leads/${a.id}`, { key: x.key });
    const count = async () =>
      (await db.db.select().from(disclosures).where(eq(disclosures.tenantId, x.tenantId))).length;
    const rows = await count();
    const first = await call("GET", "/disclosures?limit=1", { key: x.key, ...P });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data[0]).toMatchObject({ route: "GET /leads/{id}", resource_type: "lead", resource_ids: [a.id] });
    const next = await call("GET", `/disclosures?limit=1&cursor=${first.body.next_cursor}`, { key: x.key, ...P });
    expect(next.body.data[0].route).toBe("POST /leads");
    expect((await call("GET", "/disclosures?resource_type=message", { key: x.key, ...P })).body.data).toEqual([]);
    expect(await count()).toBe(rows);
    const conv = await leadsTenant({ scopes: ["conversations:read"] });
    expect((await call("GET", "/disclosures", { key: conv.key, ...P })).status).toBe(200);
    const none = await leadsTenant({ scopes: ["cards:read"] });
    expect((await call("GET", "/disclosures", { key: none.key, ...P })).body.code).toBe("scope_missing");
  });
});

describe("test mode", () => {
  it("keeps a test key's lead writes out of live data, and scores it from the sandbox wallet", async () => {
    const x = await leadsTenant();
    const test = await sandboxKey(db.db, x);
    const a = await create(test, { title: "Sandbox lead", contact: { email: "sandbox@example.com" } });
    expect(a.status).toBe(201);
    expect((await call("GET", `/leads/${a.body.id}`, { key: x.key })).status).toBe(404);
    expect((await patch(x.key, a.body.id, { title: "live?" }, a.body.etag)).status).toBe(404);
    const live = await call("GET", "/leads", { key: x.key });
    expect(live.body.data.map((l: { id: string }) => l.id)).not.toContain(a.body.id);
    const before = await liveWallet(x.tenantId);
    expect((await score(test, a.body.id)).status).toBe(200);
    expect((await liveWallet(x.tenantId)).balanceMinor).toBe(before.balanceMinor);
    const [ev] = await eventsOf(x.tenantId, "lead.created");
    expect(ev!.livemode).toBe(false);
  });
});

describe("the SDK (client.leadsWrites)", () => {
  it("creates, changes under If-Match, meets a 412 with the current etag, scores, maps statuses", async () => {
    const client = createClient({
      baseUrl: `${TEST_ORIGIN}/api/public/v1`,
      apiKey: t.key,
      fetch: inProcessFetch({ preview: "leads-writes" }),
    });
    const lead = await client.leadsWrites.create({ title: "From the SDK" });
    const changed = await client.leadsWrites.update(lead.id, lead.etag, { next_action: "call back" });
    expect(changed.version).toBe(2);
    const stale = await client.leadsWrites.update(lead.id, lead.etag, { title: "late" }).catch((e: unknown) => e);
    expect(isApiError(stale) && stale.code).toBe("precondition_failed");
    expect((await client.leadsWrites.score(lead.id)).usage.model).toBe("lead-score-1.0");
    expect((await client.leadsWrites.statusMap.put({ Done: "won" })).map).toEqual({ Done: "won" });
    const page = await client.leadsWrites.disclosures({ limit: 5 }).firstPage();
    expect(page.data.length).toBeGreaterThan(0);
  });
});
