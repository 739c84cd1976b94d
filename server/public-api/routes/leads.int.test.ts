import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, disclosures, leads } from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { LeadSchema } from "@/server/schemas/leads";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0);
const at = (min: number) => new Date(T0 + min * 60_000);

/** Leads by name. */
const lead: Record<string, string> = {};
let contactId: string;

async function addLead(name: string, o: Partial<typeof leads.$inferInsert>, owner = t): Promise<string> {
  const [l] = await db.db
    .insert(leads)
    .values({ tenantId: owner.tenantId, title: name, createdAt: at(0), updatedAt: at(0), ...o })
    .returning({ id: leads.id });
  lead[name] = l.id;
  return l.id;
}

const get = (path: string, key = t.key) => call("GET", path, { key });
const ids = (body: { data: { id: string }[] }) => body.data.map((l) => l.id);
const journal = (tenantId = t.tenantId) => db.db.select().from(disclosures).where(eq(disclosures.tenantId, tenantId));

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  const [c] = await db.db
    .insert(contacts)
    .values({
      tenantId: t.tenantId,
      firstName: "Anna",
      lastName: "Petrova",
      email: "anna@example.ru",
      phone: "+79990000001",
      tags: ["vip", "shoes"],
      geoCountry: "RU",
      geoCity: "Kazan",
    })
    .returning({ id: contacts.id });
  contactId = c.id;
  await addLead("a", {
    status: "new",
    source: "site",
    updatedAt: at(0),
    contactId,
    externalId: "crm-1",
    externalUrl: "https://crm.example.ru/leads/1",
    version: 3,
    assignedTo: "emp-7",
    productId: "sku-1",
    courseSlug: null,
    intent: "buy",
    aiSummary: "Asked about sizes.",
    nextAction: "Call back",
    nextActionAt: at(100),
    lastActivityAt: at(-1),
    valueMinor: 1_234_567n,
    valueCurrency: "RUB",
    attribution: {
      utm_source: "yandex",
      utm_medium: "cpc",
      utm_campaign: "autumn",
      first_page: "/catalog",
      referrer: null,
    },
    score: {
      score: 87,
      grade: "A",
      reason: "Engaged buyer",
      flags: ["repeat"],
      source: "ai",
      model: "scorer-1",
      scored_at: "2026-11-01T09:30:00.000Z",
    },
    flags: { buy_intent: true, support: false, supplier: false },
  });
  await addLead("b", { status: "qualified", source: "telegram", updatedAt: at(10), qualifiedAt: at(9) });
  await addLead("c", { status: "won", source: "site", updatedAt: at(20), wonAt: at(20) });
  await addLead("f", { status: "new", source: "site", updatedAt: at(20) });
  await addLead("d", {
    status: "new",
    source: "site",
    updatedAt: at(30),
    archived: true,
    archivedReason: "ai_not_client",
  });
  await addLead("e", { status: "lost", source: "site", updatedAt: at(40), lostAt: at(40), lostReason: "price" });
  await addLead("foreign", { status: "new", source: "site", updatedAt: at(5) }, other);
});
afterAll(async () => db.drop());

/** The non-archived leads of `t` in list order: (updated_at, id); c and f share their moment. */
function visibleOrder(): string[] {
  const [first, second] = [lead.c, lead.f].sort();
  return [lead.a, lead.b, first, second, lead.e];
}

describe("GET /leads", () => {
  it("lists the tenant's non-archived leads by (updated_at, id), privately, without other tenants' leads", async () => {
    const r = await get("/leads");
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(visibleOrder());
    expect(r.body.next_cursor).toBeNull();
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(r.text).not.toContain(lead.foreign);
  });

  it("answers every field of a lead: contact, money, jsonb objects, version and etag", async () => {
    const a = (await get("/leads")).body.data[0];
    expect(a).toEqual({
      id: lead.a,
      external_id: "crm-1",
      external_url: "https://crm.example.ru/leads/1",
      version: 3,
      etag: expect.stringMatching(/^"3-[A-Za-z0-9_-]{22}"$/),
      status: "new",
      archived: false,
      archived_reason: null,
      owner: "internal",
      title: "a",
      source: "site",
      assigned_to: "emp-7",
      product_id: "sku-1",
      course_slug: null,
      conversation_id: null,
      intent: "buy",
      ai_summary: "Asked about sizes.",
      next_action: "Call back",
      lost_reason: null,
      value: { amount: "12345.67", currency: "RUB" },
      contact: {
        id: contactId,
        first_name: "Anna",
        last_name: "Petrova",
        email: "anna@example.ru",
        phone: "+79990000001",
        tags: ["vip", "shoes"],
        geo_country: "RU",
        geo_city: "Kazan",
      },
      attribution: {
        utm_source: "yandex",
        utm_medium: "cpc",
        utm_campaign: "autumn",
        first_page: "/catalog",
        referrer: null,
      },
      score: {
        score: 87,
        grade: "A",
        reason: "Engaged buyer",
        flags: ["repeat"],
        source: "ai",
        model: "scorer-1",
        scored_at: "2026-11-01T09:30:00.000Z",
      },
      flags: { buy_intent: true, support: false, supplier: false },
      next_action_at: at(100).toISOString(),
      qualified_at: null,
      won_at: null,
      lost_at: null,
      last_activity_at: at(-1).toISOString(),
      created_at: at(0).toISOString(),
      updated_at: at(0).toISOString(),
    });
  });

  it("answers null contact, value, attribution, score and flags for a lead without them", async () => {
    const b = (await get("/leads?source=telegram")).body.data[0];
    expect(b).toMatchObject({
      id: lead.b,
      contact: null,
      value: null,
      attribution: null,
      score: null,
      flags: null,
      qualified_at: at(9).toISOString(),
    });
  });

  it("answers a value beyond 2^53 minor units exactly, the same in the list as by id", async () => {
    const owner = await makeTenant(db.db);
    const id = await addLead("huge", { valueMinor: 2n ** 60n + 7n, valueCurrency: "USD" }, owner);
    const listed = (await get("/leads", owner.key)).body.data;
    expect(listed.map((l: { id: string }) => l.id)).toEqual([id]);
    expect(listed[0].value).toEqual({ amount: "11529215046068469.83", currency: "USD" });
    expect(listed[0]).toEqual((await get(`/leads/${id}`, owner.key)).body);
  });

  it("answers the fields in the spec's order, sub-objects included, with the documented etag", async () => {
    const r = await get("/leads");
    const a = JSON.parse(r.text).data[0];
    expect(Object.keys(a)).toEqual(Object.keys(LeadSchema.shape));
    expect(Object.keys(a.contact)).toEqual([
      "id",
      "first_name",
      "last_name",
      "email",
      "phone",
      "tags",
      "geo_country",
      "geo_city",
    ]);
    expect(Object.keys(a.value)).toEqual(["amount", "currency"]);
    expect(Object.keys(a.attribution)).toEqual(["utm_source", "utm_medium", "utm_campaign", "first_page", "referrer"]);
    expect(Object.keys(a.score)).toEqual(["score", "grade", "reason", "flags", "source", "model", "scored_at"]);
    expect(Object.keys(a.flags)).toEqual(["buy_intent", "support", "supplier"]);
    // `"<version>-<22 base64url chars of sha256(id:version)>"`: the tag PostgreSQL writes is the one we document.
    const digest = createHash("sha256").update(`${lead.a}:3`).digest("base64url").slice(0, 22);
    expect(a.etag).toBe(`"3-${digest}"`);
  });

  it("reads stored sub-objects of any shape field by field, and money of any sign", async () => {
    const owner = await makeTenant(db.db);
    const odd = await addLead(
      "odd",
      {
        valueMinor: -5n,
        valueCurrency: "RUB",
        // Any JSON a producer may have stored, whatever the column's declared type.
        attribution: ["not", "an", "object"] as never,
        score: {
          score: "87",
          grade: 5,
          flags: ["repeat", 7, null, "hot"],
          scored_at: "2026-11-01T12:30:00+03:00",
          extra: "kept out",
        } as never,
        flags: { buy_intent: "yes", support: true } as never,
      },
      owner,
    );
    const bad = await addLead(
      "bad",
      {
        valueMinor: 0n,
        valueCurrency: "",
        // Texts and keys that look like the lead's own fields must not move them.
        externalId: 'x","status":"won',
        score: { flags: "repeat", scored_at: "not a moment", status: "won", next_action_at: "soon" } as never,
        flags: { ',"next_action_at":': true, buy_intent: false } as never,
        nextActionAt: at(50),
        updatedAt: at(1),
      },
      owner,
    );
    const zero = await addLead("zero", { valueMinor: 0n, valueCurrency: "GBP", updatedAt: at(2) }, owner);
    const listed = (await get("/leads", owner.key)).body.data;
    expect(listed.map((l: { id: string }) => l.id)).toEqual([odd, bad, zero]);
    expect(listed[0]).toMatchObject({
      value: { amount: "-0.05", currency: "RUB" },
      attribution: { utm_source: null, utm_medium: null, utm_campaign: null, first_page: null, referrer: null },
      score: {
        score: null,
        grade: null,
        reason: null,
        flags: ["repeat", "hot"],
        source: null,
        model: null,
        scored_at: "2026-11-01T09:30:00.000Z",
      },
      flags: { buy_intent: null, support: true, supplier: null },
    });
    expect(listed[0].score).not.toHaveProperty("extra");
    expect(listed[1]).toMatchObject({
      external_id: 'x","status":"won',
      version: 1,
      status: "new",
      value: null,
      attribution: null,
      flags: { buy_intent: false, support: null, supplier: null },
      next_action_at: at(50).toISOString(),
    });
    expect(listed[1].score).toEqual({
      score: null,
      grade: null,
      reason: null,
      flags: null,
      source: null,
      model: null,
      scored_at: null,
    });
    expect(listed[1].etag).toBe(`"1-${createHash("sha256").update(`${bad}:1`).digest("base64url").slice(0, 22)}"`);
    expect(listed[2].value).toEqual({ amount: "0.00", currency: "GBP" });
    for (const l of listed) expect(l).toEqual((await get(`/leads/${l.id}`, owner.key)).body);
  });

  it("answers what a producer wrote last: sub-objects and etag follow every update of the row", async () => {
    const owner = await makeTenant(db.db);
    const id = await addLead("rewritten", { score: { score: 10, grade: "C" }, flags: 0 as never }, owner);
    const first = (await get(`/leads/${id}`, owner.key)).body;
    expect(first).toMatchObject({ score: { score: 10, grade: "C", scored_at: null }, flags: null, attribution: null });
    // A producer (scorer, CRM sync) writes the row directly, as it may; the answer is made from what it wrote.
    await db.db
      .update(leads)
      .set({
        version: 2,
        score: sql`'{"score": 1e400, "grade": "B", "scored_at": "2026-02-30T00:00:00Z", "flags": [1, "new"]}'::jsonb`,
        flags: { buy_intent: true },
        attribution: { utm_source: 'a"b\u0001é', first_page: 7 } as never,
      })
      .where(eq(leads.id, id));
    const second = (await get(`/leads/${id}`, owner.key)).body;
    expect(second).toMatchObject({
      version: 2,
      etag: `"2-${createHash("sha256").update(`${id}:2`).digest("base64url").slice(0, 22)}"`,
      // 1e400 is no finite number; February 30th is no moment.
      score: { score: null, grade: "B", reason: null, flags: ["new"], scored_at: null },
      flags: { buy_intent: true, support: null, supplier: null },
      attribution: { utm_source: 'a"b\u0001é', utm_medium: null, first_page: null },
    });
    expect(second.etag).not.toBe(first.etag);
    // PostgreSQL's words for moments ('now', 'epoch') are not stored moments.
    await db.db
      .update(leads)
      .set({ score: { scored_at: "now" } })
      .where(eq(leads.id, id));
    expect((await get(`/leads/${id}`, owner.key)).body.score.scored_at).toBeNull();
    await db.db
      .update(leads)
      .set({ score: { scored_at: "2026-11-01 12:30:00.1239+03" } })
      .where(eq(leads.id, id));
    expect((await get(`/leads/${id}`, owner.key)).body.score.scored_at).toBe("2026-11-01T09:30:00.123Z");
    expect((await get("/leads", owner.key)).body.data).toEqual([(await get(`/leads/${id}`, owner.key)).body]);
  });

  it("answers what a producer wrote last: the lead's own fields, its value and its contact", async () => {
    const owner = await makeTenant(db.db);
    const [c] = await db.db
      .insert(contacts)
      .values({ tenantId: owner.tenantId, firstName: "Ann", email: "ann@example.com", tags: ["vip"] })
      .returning({ id: contacts.id });
    const id = await addLead("own-fields", { status: "new", contactId: c.id }, owner);
    expect((await get(`/leads/${id}`, owner.key)).body).toMatchObject({
      title: "own-fields",
      status: "new",
      value: null,
      won_at: null,
      contact: { id: c.id, first_name: "Ann", email: "ann@example.com", tags: ["vip"] },
    });
    // Every column of the row is the producer's to write; the answer follows each of them.
    await db.db
      .update(leads)
      .set({
        title: 'Quote "B"\n\u2028',
        status: "won",
        wonAt: new Date("2026-11-20T10:11:12.345Z"),
        valueMinor: 9_007_199_254_740_993n, // beyond 2^53: exact as text
        valueCurrency: "RUB",
        assignedTo: "mia",
        updatedAt: new Date("2026-11-21T00:00:00.007Z"),
      })
      .where(eq(leads.id, id));
    // The contact is another row: a change to it shows on the lead without the lead being written.
    await db.db.update(contacts).set({ email: "ann@new.example.com" }).where(eq(contacts.id, c.id));
    const after = (await get(`/leads/${id}`, owner.key)).body;
    expect(after).toMatchObject({
      title: 'Quote "B"\n\u2028',
      status: "won",
      won_at: "2026-11-20T10:11:12.345Z",
      value: { amount: "90071992547409.93", currency: "RUB" },
      assigned_to: "mia",
      updated_at: "2026-11-21T00:00:00.007Z",
      contact: { email: "ann@new.example.com" },
    });
    expect(LeadSchema.parse(after)).toBeTruthy();
    // A value without a currency is no money; a lead without its contact answers null.
    await db.db.update(leads).set({ valueCurrency: "" }).where(eq(leads.id, id));
    await db.db.delete(contacts).where(eq(contacts.id, c.id));
    expect((await get(`/leads/${id}`, owner.key)).body).toMatchObject({ value: null, contact: null });
    expect((await get("/leads", owner.key)).body.data).toEqual([(await get(`/leads/${id}`, owner.key)).body]);
  });

  it("filters by canonical status and refuses any other status with 422 on /status", async () => {
    expect(ids((await get("/leads?status=won")).body)).toEqual([lead.c]);
    expect(ids((await get("/leads?status=lost")).body)).toEqual([lead.e]);
    expect(ids((await get("/leads?status=proposal")).body)).toEqual([]);
    const r = await get("/leads?status=archived");
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/status" })]);
  });

  it("shows only archived leads with archived=true, only non-archived ones with archived=false (the default)", async () => {
    const archived = await get("/leads?archived=true");
    expect(ids(archived.body)).toEqual([lead.d]);
    expect(archived.body.data[0]).toMatchObject({ archived: true, archived_reason: "ai_not_client" });
    expect(ids((await get("/leads?archived=false")).body)).toEqual(visibleOrder());
    const bad = await get("/leads?archived=yes");
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: "/archived" })]);
  });

  it("filters by the exact source value", async () => {
    expect(ids((await get("/leads?source=telegram")).body)).toEqual([lead.b]);
    expect(ids((await get("/leads?source=Site")).body)).toEqual([]);
    expect(ids((await get("/leads?source=site&status=new")).body)).toEqual([lead.a, lead.f]);
  });

  it("counts updated_since inclusively and updated_after strictly at the exact moment", async () => {
    const m = encodeURIComponent(at(20).toISOString());
    const [first, second] = [lead.c, lead.f].sort();
    expect(ids((await get(`/leads?updated_since=${m}`)).body)).toEqual([first, second, lead.e]);
    expect(ids((await get(`/leads?updated_after=${m}`)).body)).toEqual([lead.e]);
    // The same moment written with a zone offset: 10:20Z = 13:20+03:00.
    expect(ids((await get(`/leads?updated_since=${encodeURIComponent("2026-11-01T13:20:00+03:00")}`)).body)).toEqual([
      first,
      second,
      lead.e,
    ]);
    expect(ids((await get(`/leads?updated_after=${encodeURIComponent("2026-11-01T13:20:00+03:00")}`)).body)).toEqual([
      lead.e,
    ]);
  });

  it("reads a date YYYY-MM-DD as midnight UTC", async () => {
    expect(ids((await get("/leads?updated_since=2026-11-01")).body)).toEqual(visibleOrder());
    expect(ids((await get("/leads?updated_after=2026-11-01")).body)).toEqual(visibleOrder());
    expect(ids((await get("/leads?updated_since=2026-11-02")).body)).toEqual([]);
  });

  it.each([
    ["updated_since", "2026-11-01T10:00:00"],
    ["updated_since", "yesterday"],
    ["updated_since", "2026-13-01"],
    ["updated_after", "1700000000"],
  ])("answers 422 invalid_format on /%s=%s", async (name, value) => {
    const r = await get(`/leads?${name}=${encodeURIComponent(value)}`);
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: `/${name}`, code: "invalid_format" })]);
  });

  it("refuses updated_since together with updated_after with 422 on /updated_after", async () => {
    const r = await get("/leads?updated_since=2026-11-01&updated_after=2026-11-01");
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors).toEqual([
      { field: "/updated_after", code: "conflict", message: expect.stringContaining("not both") },
    ]);
    expect(r.text).not.toContain(lead.a);
  });

  it("answers include_deleted=true with 422 not_supported and accepts include_deleted=false", async () => {
    const r = await get("/leads?include_deleted=true");
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/include_deleted", code: "not_supported" })]);
    const ok = await get("/leads?include_deleted=false");
    expect(ok.status).toBe(200);
    expect(ids(ok.body)).toEqual(visibleOrder());
  });

  it("refuses unknown parameters and a limit outside 1..100", async () => {
    expect((await get("/leads?stage=won")).body.errors).toEqual([expect.objectContaining({ field: "/stage" })]);
    for (const l of ["0", "101", "x"]) {
      const r = await get(`/leads?limit=${l}`);
      expect(r.status, l).toBe(422);
      expect(r.body.errors).toEqual([expect.objectContaining({ field: "/limit" })]);
    }
  });

  it("walks every lead exactly once in order with cursors, next_cursor null at the end", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await get(`/leads?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...ids(r.body));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(visibleOrder());
    expect(pages).toBe(3);
  });

  it("pages through leads changed at the same moment by id, none skipped or repeated", async () => {
    const m = await makeTenant(db.db);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [l] = await db.db
        .insert(leads)
        .values({ tenantId: m.tenantId, updatedAt: at(60) })
        .returning({ id: leads.id });
      made.push(l.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const r = await get(`/leads?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, m.key);
      seen.push(...ids(r.body));
      cursor = r.body.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(made.sort());
  });

  it("binds the cursor to the filter set: another filter answers 422 on /cursor", async () => {
    const first = await get("/leads?status=new&limit=1");
    const cursor = encodeURIComponent(first.body.next_cursor);
    expect((await get(`/leads?status=new&limit=1&cursor=${cursor}`)).status).toBe(200);
    for (const q of [
      "status=won",
      "status=new&archived=true",
      "status=new&source=site",
      "status=new&updated_since=2026-11-01",
      "status=new&include_deleted=false",
    ]) {
      const r = await get(`/leads?${q}&limit=1&cursor=${cursor}`);
      expect(r.status, q).toBe(422);
      expect(r.body.errors).toEqual([expect.objectContaining({ field: "/cursor" })]);
    }
    const foreign = await get(`/leads?status=new&limit=1&cursor=${cursor}`, other.key);
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ field: "/cursor" })]);
  });
});

describe("GET /leads/{id}", () => {
  it("answers the lead as listed, privately, with an ETag equal to its etag", async () => {
    const r = await get(`/leads/${lead.a}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual((await get("/leads")).body.data[0]);
    expect(r.headers.get("etag")).toBe(r.body.etag);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
  });

  it("changes the etag with the version", async () => {
    const id = await addLead("versioned", { version: 1 });
    const before = await get(`/leads/${id}`);
    await db.db.update(leads).set({ version: 2 }).where(eq(leads.id, id));
    const after = await get(`/leads/${id}`);
    expect(after.body.version).toBe(2);
    expect(after.headers.get("etag")).toBe(after.body.etag);
    expect(after.body.etag).not.toBe(before.body.etag);
    // Two leads at the same version still have different tags.
    expect(after.body.etag).not.toBe((await get(`/leads/${lead.b}`)).body.etag);
    await db.db.delete(leads).where(eq(leads.id, id));
  });

  it("answers another tenant's lead exactly like a missing one (404 not_found)", async () => {
    const foreign = await get(`/leads/${lead.foreign}`);
    const missing = await get(`/leads/${crypto.randomUUID()}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("not_found");
    const strip = (b: Record<string, unknown>) => ({ ...b, request_id: undefined });
    expect(strip(foreign.body)).toEqual(strip(missing.body));
    expect(foreign.text).not.toContain(lead.foreign);
  });

  it("answers 404 for an id that is not a uuid", async () => {
    const r = await get("/leads/not-a-uuid");
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
  });
});

describe("personal-data rules", () => {
  it("journals the ids of every answer with leads, and nothing for an empty page", async () => {
    const list = await get("/leads?limit=3");
    const [row] = (await journal()).filter((j) => j.requestId === list.headers.get("x-request-id"));
    expect(row).toMatchObject({ route: "GET /leads", resourceType: "lead", integrationId: t.integrationId });
    expect(row.resourceIds).toEqual(ids(list.body));
    expect(row.resourceIds).toHaveLength(3);

    const one = await get(`/leads/${lead.b}`);
    const [single] = (await journal()).filter((j) => j.requestId === one.headers.get("x-request-id"));
    expect(single).toMatchObject({ route: "GET /leads/{id}", resourceType: "lead", resourceIds: [lead.b] });

    const empty = await get("/leads?status=proposal");
    expect(empty.body.data).toEqual([]);
    expect((await journal()).filter((j) => j.requestId === empty.headers.get("x-request-id"))).toHaveLength(0);
  });

  it("answers 503 and returns no data when the disclosure journal cannot be written", async () => {
    await db.db.execute(sql`alter table disclosures rename to disclosures_x`);
    try {
      for (const p of ["/leads", `/leads/${lead.a}`]) {
        const r = await get(p);
        expect(r.status, p).toBe(503);
        expect(r.body.code).toBe("service_unavailable");
        expect(r.headers.get("retry-after")).not.toBeNull();
        expect(r.headers.get("etag")).toBeNull();
        expect(r.text).not.toContain(lead.a);
        expect(r.text).not.toContain("Anna");
      }
    } finally {
      await db.db.execute(sql`alter table disclosures_x rename to disclosures`);
    }
  });

  it("on the RU cell refuses an integration whose recipient is outside Russia with 403 before any read", async () => {
    const abroad = await makeTenant(db.db, { integration: { piiCountry: "DE" } });
    const id = await addLead("abroad", { status: "new" }, abroad);
    for (const p of ["/leads", `/leads/${id}`]) {
      const r = await get(p, abroad.key);
      expect(r.status, p).toBe(403);
      expect(r.body.code).toBe("pii_transfer_not_allowed");
      expect(r.text).not.toContain(id);
    }
    expect(await journal(abroad.tenantId)).toHaveLength(0);
  });

  it("needs the leads:read scope (403 scope_missing)", async () => {
    const narrow = await makeTenant(db.db, { scopes: ["conversations:read"] });
    for (const p of ["/leads", `/leads/${crypto.randomUUID()}`]) {
      const r = await get(p, narrow.key);
      expect(r.status, p).toBe(403);
      expect(r.body.code).toBe("scope_missing");
    }
  });
});
