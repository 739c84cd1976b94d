import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { events, intakeEvents, leads } from "@/db/schema";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { setClock } from "@/server/lib/clock";
import { SCOPES } from "@/server/schemas/scopes";
import { createLead } from "@/server/services/leads/lead-writes";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

// `POST /intake/events` (issue 74 items 1 and 2, preview `event-intake`): the Planned 404 without the
// preview, one verdict per event in request order for every rule, the raw rows (no email or phone), the
// envelope's 422, 413, 402 with nothing stored, scope, one write per batch, test mode, the 7-day dedup
// window on a fake clock, and the CRM effects with and without `leads-writes`. Answers are checked against
// the preview's document. PGlite, and PostgreSQL with DATABASE_URL (dedup across processes:
// ../intake-processes.int.test.ts).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "event-intake" as const };
const MIN = 60_000;
const DAY = 86_400_000;

const send = (key: string, json: unknown, o: { raw?: string } = {}) =>
  call(
    "POST",
    "/intake/events",
    o.raw === undefined
      ? { key, json, ...P }
      : { key, raw: o.raw, ...P, headers: { "content-type": "application/json" } },
  );
const at = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();
const uid = (p = "e") => `${p}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const view = (id = uid(), o: Record<string, unknown> = {}) => ({
  event_id: id,
  type: "page_view",
  occurred_at: at(),
  page: { url: "https://shop.example.ru/boots?size=42", title: "Boots", referrer: "https://chatgpt.com/" },
  ...o,
});
const rowsOfTenant = (tenantId: string) => db.db.select().from(intakeEvents).where(eq(intakeEvents.tenantId, tenantId));
const outbox = (tenantId: string, type: string) =>
  db.db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));

async function intakeTenant(opts: Parameters<typeof makeTenant>[1] = {}, previews: string[] = []) {
  const x = await makeTenant(db.db, opts);
  for (const f of ["event-intake", ...previews]) await setPreview(db.db, x.tenantId, f, true);
  await setLimitOverride(db.db, { keyId: x.keyId }, { readPerMin: 100_000, writePerMin: 100_000 });
  return x;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await intakeTenant();
});
afterEach(() => setClock(undefined));
afterAll(async () => db.drop());

describe("without the preview", () => {
  it("answers the Planned 404 before authentication; only the preview's document has the route", async () => {
    const off = await makeTenant(db.db);
    for (const key of [off.key, "pk_live_not_a_key", null]) {
      const r = await call("POST", "/intake/events", { key, json: { events: [view()] } });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    type Doc = { paths: Record<string, Record<string, { "x-scope"?: string; "x-rate-class"?: string }>> };
    const doc = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as Doc;
    expect((await doc("")).paths["/intake/events"]).toBeUndefined();
    const op = (await doc("?preview=event-intake")).paths["/intake/events"]?.post;
    expect(op).toMatchObject({ "x-scope": "analytics:write", "x-rate-class": "write" });
  });
});

describe("a batch", () => {
  it("answers every event in request order: accepted, duplicate, rejected for each rule", async () => {
    const foreign = await makeTenant(db.db);
    const foreignLead = await createLead(db.db, { via: "system", tenantId: foreign.tenantId }, { title: "Theirs" });
    const first = uid("first");
    const earlier = uid("earlier");
    expect((await send(t.key, { events: [view(earlier)] })).body.results[0].status).toBe("accepted");
    const props51 = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    const batch = [
      view(first, {
        contact: { email: "Anna@Example.com", phone: "+7 900 123-45-67", external_id: "cust-1" },
        utm: { source: "google", medium: "organic", campaign: "spring" },
        properties: { visitor_id: "v-1", plan: "pro" },
      }),
      view(first),
      view(earlier),
      { type: "page_view", occurred_at: at() },
      view("x".repeat(101)),
      view(uid(), { type: "click" }),
      view(uid(), { type: "custom:Bad Name" }),
      view(uid(), { occurred_at: at(-7 * DAY - MIN) }),
      view(uid(), { occurred_at: at(11 * MIN) }),
      view(uid(), { properties: props51 }),
      view(uid(), { properties: { blob: "y".repeat(33 * 1024) } }),
      view(uid(), { value: { amount: "10.00", currency: "RUB" } }),
      view(uid(), { type: "purchase", lead_id: foreignLead.id, value: { amount: "10.00", currency: "RUB" } }),
      view(uid("custom"), { type: "custom:video.play_1", occurred_at: at(-7 * DAY + MIN) }),
      "not an event",
      view(uid(), { occurred_at: at(9 * MIN), order_id: "o-1" }),
    ];
    const r = await send(t.key, { events: batch });
    expect(r.status).toBe(200);
    const out = r.body.results as {
      event_id: string | null;
      status: string;
      errors?: { field: string; code: string }[];
    }[];
    expect(out).toHaveLength(batch.length);
    const R = "rejected";
    expect(out.map((x) => x.status)).toEqual([
      "accepted",
      "duplicate",
      "duplicate",
      ...Array(10).fill(R),
      "accepted",
      R,
      R,
    ]);
    expect(out.map((x) => x.event_id)).toEqual(
      batch.map((e) => (typeof e === "object" && "event_id" in e ? e.event_id : null)),
    );
    const errs = out.map((x) => (x.errors ?? []).map((e) => `${e.field} ${e.code}`));
    expect(errs.slice(3)).toEqual([
      ["/events/3/event_id required"],
      ["/events/4/event_id too_long"],
      ["/events/5/type invalid_format"],
      ["/events/6/type invalid_format"],
      ["/events/7/occurred_at out_of_range"],
      ["/events/8/occurred_at out_of_range"],
      ["/events/9/properties too_many"],
      ["/events/10 too_large"],
      ["/events/11/value not_supported"],
      ["/events/12/lead_id not_found"],
      [],
      ["/events/14 invalid_type"],
      ["/events/15/order_id not_supported"],
    ]);
    for (const x of out) expect("errors" in x).toBe(x.status === "rejected");

    // Every event has its raw row: the classification filled, the rejected ones with their errors, and
    // no email or phone anywhere.
    const rows = await rowsOfTenant(t.tenantId);
    const mine = rows.filter((x) => x.receivedAt.getTime() >= Date.now() - MIN);
    expect(mine.filter((x) => x.status === "accepted")).toHaveLength(3);
    expect(mine.filter((x) => x.status === "duplicate")).toHaveLength(2);
    expect(mine.filter((x) => x.status === "rejected")).toHaveLength(12);
    const a = mine.find((x) => x.eventId === first && x.status === "accepted")!;
    expect(a).toMatchObject({
      type: "page_view",
      livemode: true,
      integrationId: t.integrationId,
      source: "google",
      kind: "search",
      sessionStart: true,
      visitorKey: "v-1",
      pageUrl: "https://shop.example.ru/boots?size=42",
      pagePath: "/boots",
      pageTitle: "Boots",
      referrer: "https://chatgpt.com/",
      utmSource: "google",
      utmCampaign: "spring",
      properties: { visitor_id: "v-1", plan: "pro" },
      errors: null,
    });
    const long = mine.find((x) => x.errors?.[0]?.field === "/events/4/event_id")!;
    expect([long.eventId?.length, long.type, long.occurredAt]).toEqual([100, "page_view", null]);
    expect(mine.find((x) => x.errors?.[0]?.field === "/events/14")).toMatchObject({ eventId: null, type: null });
    const text = JSON.stringify(rows).toLowerCase();
    expect(text).not.toContain("anna@example.com");
    expect(text).not.toContain("123-45-67");
    expect(text).not.toContain("9001234567");
  });

  it("rejects an event holding a control character alone, naming the field; the batch's others are accepted", async () => {
    const [a, b] = [uid("nul-a"), `nul-\u0000-${uid()}`];
    const r = await send(t.key, {
      events: [view(a), view(b), view(uid(), { page: { url: "https://x.example/\u0007" } })],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(["accepted", "rejected", "rejected"]);
    expect(r.body.results[1]).toMatchObject({ event_id: b });
    expect(r.body.results[1].errors).toContainEqual(
      expect.objectContaining({ field: "/events/1/event_id", code: "invalid_character" }),
    );
    expect(r.body.results[2].errors).toContainEqual(
      expect.objectContaining({ field: "/events/2/page/url", code: "invalid_character" }),
    );
    // The rejected row keeps no text holding the character (PostgreSQL refuses U+0000 in text).
    const rows = (await rowsOfTenant(t.tenantId)).filter((y) => y.status === "rejected" && y.eventId === null);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    // A character in the envelope itself still refuses the batch.
    const env = await send(t.key, { events: [view()], "x\u0000": 1 });
    expect([env.status, env.body.code]).toEqual([422, "validation_failed"]);
  });

  it("refuses a malformed envelope with 422 on /events, a body over 256 KB with 413", async () => {
    const cases: [unknown, string, string][] = [
      [{ events: [] }, "/events", "too_few"],
      [{ events: Array.from({ length: 101 }, () => view()) }, "/events", "too_many"],
      [{ events: { 0: view() } }, "/events", "invalid_type"],
      [{}, "/events", "required"],
      [[view()], "", "invalid_type"],
    ];
    for (const [json, field, code] of cases) {
      const r = await send(t.key, json);
      expect([r.status, r.body.code], JSON.stringify(json).slice(0, 80)).toEqual([422, "validation_failed"]);
      expect(r.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    }
    const big = JSON.stringify({ events: [view(uid(), { properties: { blob: "z".repeat(300 * 1024) } })] });
    const r = await send(t.key, undefined, { raw: big });
    expect([r.status, r.body.code]).toEqual([413, "payload_too_large"]);
  });

  it("402 while the wallet is suspended, nothing stored; 403 without analytics:write", async () => {
    const poor = await intakeTenant({ balanceMinor: 0n });
    await changeBalance(db.db, { tenantId: poor.tenantId, amountMinor: -100n, kind: "debit", actor: "system" });
    const r = await send(poor.key, { events: [view()] });
    expect([r.status, r.body.code]).toEqual([402, "wallet_suspended"]);
    expect(await rowsOfTenant(poor.tenantId)).toEqual([]);
    const narrow = await intakeTenant({ scopes: SCOPES.filter((s) => s !== "analytics:write") });
    const s = await send(narrow.key, { events: [view()] });
    expect([s.status, s.body.code]).toEqual([403, "scope_missing"]);
  });

  it("counts a batch of 100 as one write (RateLimit headers)", async () => {
    const x = await makeTenant(db.db);
    await setPreview(db.db, x.tenantId, "event-intake", true);
    const one = await send(x.key, { events: [view()] });
    const hundred = await send(x.key, { events: Array.from({ length: 100 }, () => view()) });
    expect(hundred.body.results.every((y: { status: string }) => y.status === "accepted")).toBe(true);
    const left = [one, hundred].map((y) => Number(y.headers.get("ratelimit-remaining")));
    expect(left[0] - left[1]).toBe(1);
    expect(Number(one.headers.get("ratelimit-limit"))).toBe(120);
  });
});

describe("dedup", () => {
  it("keeps live and sandbox ids apart; the sandbox's rows are livemode false", async () => {
    const x = await intakeTenant();
    const test = await sandboxKey(db.db, x);
    await setLimitOverride(db.db, { tenantId: x.tenantId }, { writePerMin: 100_000, readPerMin: 100_000 });
    const id = uid("both");
    expect((await send(x.key, { events: [view(id)] })).body.results[0].status).toBe("accepted");
    expect((await send(test, { events: [view(id)] })).body.results[0].status).toBe("accepted");
    expect((await send(test, { events: [view(id)] })).body.results[0].status).toBe("duplicate");
    // The sandbox's sample analytics hold events of their own: only this test's id counts here.
    const rows = (await rowsOfTenant(x.tenantId)).filter((y) => y.eventId === id);
    expect(rows.map((y) => `${y.livemode} ${y.status}`).sort()).toEqual([
      "false accepted",
      "false duplicate",
      "true accepted",
    ]);
  });

  it("judges an id for 7 days: a duplicate 6 days later, accepted again 8 days later", async () => {
    const id = uid("window");
    const start = Date.now();
    const sendAt = async (ms: number) => {
      setClock(() => ms);
      const r = await send(t.key, { events: [view(id, { occurred_at: new Date(ms - MIN).toISOString() })] });
      return r.body.results[0].status as string;
    };
    expect(await sendAt(start)).toBe("accepted");
    expect(await sendAt(start + 6 * DAY)).toBe("duplicate");
    expect(await sendAt(start + 8 * DAY)).toBe("accepted");
    expect(await sendAt(start + 8 * DAY + MIN)).toBe("duplicate");
    const days = rowsOf<{ name: string }>(
      await db.db.execute(sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid`),
    );
    expect(days.length).toBeGreaterThanOrEqual(3);
  });
});

describe("what intake changes in the CRM", () => {
  const purchase = (o: Record<string, unknown>) =>
    view(uid("buy"), { type: "purchase", value: { amount: "1500.00", currency: "RUB" }, order_id: "o-9", ...o });
  const leadOf = async (id: string) => (await db.db.select().from(leads).where(eq(leads.id, id)))[0]!;

  it("a purchase by contact wins the lead and sets its value (leads-writes); without that preview it only links", async () => {
    for (const withWrites of [true, false]) {
      const x = await intakeTenant({}, withWrites ? ["leads-writes"] : []);
      const actor = { via: "system" as const, tenantId: x.tenantId };
      const lead = await createLead(db.db, actor, { title: "Boots", contact: { email: "buyer@example.com" } });
      const r = await send(x.key, { events: [purchase({ contact: { email: "BUYER@example.com" } })] });
      expect(r.body.results[0].status).toBe("accepted");
      const after = await leadOf(lead.id);
      const [row] = await rowsOfTenant(x.tenantId);
      expect(row).toMatchObject({ leadId: lead.id, valueMinor: 150000n, currency: "RUB", orderId: "o-9" });
      if (withWrites) {
        expect(after).toMatchObject({ status: "won", valueMinor: 150000n, valueCurrency: "RUB", version: 2 });
        expect(after.wonAt).not.toBeNull();
        expect(row!.leadEffect).toBe("lead_won");
        const [changed] = await outbox(x.tenantId, "lead.status_changed");
        expect(changed!.data).toMatchObject({ lead_id: lead.id, version: 2, from: "new", to: "won" });
        expect(await outbox(x.tenantId, "lead.updated")).toHaveLength(1);
        // Won already, with a value: a second purchase changes nothing more.
        await send(x.key, { events: [purchase({ lead_id: lead.id, value: { amount: "9.00", currency: "RUB" } })] });
        expect(await leadOf(lead.id)).toMatchObject({ version: 2, valueMinor: 150000n });
      } else {
        expect(after).toMatchObject({ status: "new", valueMinor: null, version: 1 });
        expect(row!.leadEffect).toBeNull();
        expect(await outbox(x.tenantId, "lead.updated")).toEqual([]);
      }
    }
  });

  it("a form submission of a new contact makes a lead with its attribution; the next one links to it", async () => {
    const x = await intakeTenant();
    const form = () =>
      view(uid("form"), {
        type: "form_submit",
        contact: { email: "new@example.com", phone: "+7 (901) 000-11-22" },
        utm: { source: "vk", medium: "social", campaign: "may" },
        page: { url: "https://shop.example.ru/contact?ref=1", referrer: "https://vk.com/shop" },
      });
    const r = await send(x.key, { events: [form(), form()] });
    expect(r.body.results.map((y: { status: string }) => y.status)).toEqual(["accepted", "accepted"]);
    const made = await db.db.select().from(leads).where(eq(leads.tenantId, x.tenantId));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      title: "Form submission on /contact",
      source: "social",
      status: "new",
      attribution: {
        utm_source: "vk",
        utm_medium: "social",
        utm_campaign: "may",
        first_page: "https://shop.example.ru/contact",
        referrer: "https://vk.com/shop",
      },
    });
    const [created] = await outbox(x.tenantId, "lead.created");
    expect(created!.data).toMatchObject({ lead_id: made[0]!.id, version: 1 });
    const rows = await rowsOfTenant(x.tenantId);
    expect(rows.map((y) => [y.leadId, y.leadEffect])).toEqual([
      [made[0]!.id, "lead_created"],
      [made[0]!.id, null],
    ]);
    // A sign-up with only an external id that no lead has makes none.
    await send(x.key, { events: [view(uid(), { type: "signup", contact: { external_id: "nobody" } })] });
    expect(await db.db.select().from(leads).where(eq(leads.tenantId, x.tenantId))).toHaveLength(1);
  });
});
