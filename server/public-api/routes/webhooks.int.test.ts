import { eq } from "drizzle-orm";
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { events, integrations, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { createLogger, setLogger } from "@/server/log";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { buildEnvelope } from "@/server/webhook-transport/envelope";
import { openSecret } from "@/server/webhook-transport/secret-box";
import { setHostResolver } from "@/server/webhook-transport/url-check";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const idem = () => `k-${++n}-${Date.now()}`;
const URL_OK = "https://hooks.example.com/in";

const HOSTS: Record<string, string[]> = {
  "hooks.example.com": ["93.184.216.34"],
  "other.example.com": ["93.184.216.35", "2606:2800:220:1:248:1893:25c8:1946"],
  "intranet.example.com": ["10.0.0.1"],
  "sneaky.example.com": ["93.184.216.34", "::ffff:127.0.0.1"],
};

/** POST /webhooks with a fresh Idempotency-Key. */
const create = (json: unknown, key = t.key, idempotencyKey = idem()) =>
  call("POST", "/webhooks", { key, json, idempotencyKey });

beforeAll(async () => {
  db = await openTestDatabase();
  setHostResolver(async (host) => {
    const a = HOSTS[host];
    if (!a) throw new Error("ENOTFOUND");
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  });
});
// A fresh tenant per test, so the 10-subscription limit of one test never leaks into another.
beforeEach(async () => {
  t = await makeTenant(db.db);
});
afterAll(async () => {
  setHostResolver(undefined);
  setClock(undefined);
  setLogger(undefined);
  await db.drop();
});

/** A second integration (with its own key) of the same tenant. */
async function secondIntegration(tenantId: string): Promise<string> {
  const i = await createIntegration(db.db, tenantId, {
    name: "Second",
    scopes: [...SCOPES],
    piiCountry: "RU",
    legalBasis: "contract",
  });
  return (await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] })).key;
}

const WEBHOOK_KEYS = [
  "created_at",
  "description",
  "events",
  "id",
  "include_pii",
  "paused_reason",
  "previous_secret_expires_at",
  "secret_rotated_at",
  "status",
  "updated_at",
  "url",
];

describe("POST /webhooks", () => {
  it("creates an active subscription, shows the secret once and stores it only sealed", async () => {
    const r = await create({ url: URL_OK, events: ["lead.*", "message.created"], description: "CRM" });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([...WEBHOOK_KEYS, "secret"].sort());
    expect(r.body).toMatchObject({
      url: URL_OK,
      events: ["lead.*", "message.created"],
      include_pii: false,
      description: "CRM",
      status: "active",
      paused_reason: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    });
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, r.body.id));
    expect(row.integrationId).toBe(t.integrationId);
    expect(row.secretEnc).not.toContain(r.body.secret);
    expect(row.secretEnc).not.toContain(r.body.secret.slice(6));
    expect(openSecret(row.secretEnc)).toBe(r.body.secret);

    const read = await call("GET", `/webhooks/${r.body.id}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(WEBHOOK_KEYS);
    expect(read.text).not.toContain(r.body.secret);
  });

  it("answers a replay with the same subscription and secret null, creating nothing more", async () => {
    const key = idem();
    const body = { url: URL_OK, events: ["conversation.created"] };
    const first = await create(body, t.key, key);
    const again = await create(body, t.key, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ ...first.body, secret: null });
    const conflict = await create({ ...body, description: "x" }, t.key, key);
    expect([conflict.status, conflict.body.code]).toEqual([409, "idempotency_conflict"]);
    const rows = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, first.body.id));
    expect(rows).toHaveLength(1);
  });

  it("needs an Idempotency-Key", async () => {
    const r = await call("POST", "/webhooks", { key: t.key, json: { url: URL_OK, events: ["lead.*"] } });
    expect([r.status, r.body.code]).toEqual([400, "idempotency_key_required"]);
  });

  it.each([
    ["no url", { events: ["lead.*"] }, "/url", "required"],
    ["no events", { url: URL_OK }, "/events", "required"],
    ["empty events", { url: URL_OK, events: [] }, "/events", "too_few"],
    ["unknown type", { url: URL_OK, events: ["lead.*", "lead.deleted"] }, "/events/1", "unknown_event"],
    ["unknown family", { url: URL_OK, events: ["nosuch.*"] }, "/events/0", "unknown_event"],
    ["bare star", { url: URL_OK, events: ["*"] }, "/events/0", "unknown_event"],
    ["duplicate", { url: URL_OK, events: ["lead.*", "task.created", "lead.*"] }, "/events/2", "duplicate"],
    ["non-string event", { url: URL_OK, events: [5] }, "/events/0", null],
    ["long description", { url: URL_OK, events: ["lead.*"], description: "x".repeat(201) }, "/description", "too_long"],
    ["unknown field", { url: URL_OK, events: ["lead.*"], secret: "mine" }, "/secret", "unknown_field"],
    ["include_pii not boolean", { url: URL_OK, events: ["lead.*"], include_pii: "yes" }, "/include_pii", null],
    ["http", { url: "http://hooks.example.com/in", events: ["lead.*"] }, "/url", "https_only"],
    ["port", { url: "https://hooks.example.com:8443/in", events: ["lead.*"] }, "/url", "port_not_allowed"],
    ["ip literal", { url: "https://93.184.216.34/in", events: ["lead.*"] }, "/url", "ip_not_allowed"],
    ["userinfo", { url: "https://u:p@hooks.example.com/in", events: ["lead.*"] }, "/url", "userinfo_not_allowed"],
    ["unresolvable", { url: "https://nowhere.example.com/in", events: ["lead.*"] }, "/url", "unresolvable_host"],
    ["private address", { url: "https://intranet.example.com/in", events: ["lead.*"] }, "/url", "private_address"],
    [
      "one private among public",
      { url: "https://sneaky.example.com/in", events: ["lead.*"] },
      "/url",
      "private_address",
    ],
    [
      "include_pii with message.created",
      { url: URL_OK, events: ["lead.*", "message.created"], include_pii: true },
      "/include_pii",
      "not_allowed",
    ],
    ["include_pii with task.*", { url: URL_OK, events: ["task.*"], include_pii: true }, "/include_pii", "not_allowed"],
  ])("refuses %s with 422 on its field and writes nothing", async (_name, json, field, code) => {
    const before = await db.db.select().from(webhookSubscriptions);
    const r = await create(json);
    expect([r.status, r.body.code]).toEqual([422, "validation_failed"]);
    expect(r.body.errors).toContainEqual(expect.objectContaining(code === null ? { field } : { field, code }));
    expect(await db.db.select().from(webhookSubscriptions)).toHaveLength(before.length);
  });

  it("accepts include_pii for lead, contact and conversation events and logs the enabling without secrets", async () => {
    const lines: string[] = [];
    setLogger(createLogger("info", new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) as never));
    const r = await create({
      url: "https://other.example.com/pii",
      events: ["lead.*", "contact.merged", "conversation.created"],
      include_pii: true,
    });
    setLogger(undefined);
    expect(r.status).toBe(201);
    expect(r.body.include_pii).toBe(true);
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "webhook include_pii enabled");
    expect(line).toMatchObject({ webhook_id: r.body.id, integration_id: t.integrationId, tenant_id: t.tenantId });
    expect(lines.join("\n")).not.toContain(r.body.secret);
  });

  it("refuses include_pii without the matching read scope (403 scope_missing)", async () => {
    const noLeads = await makeTenant(db.db, { scopes: SCOPES.filter((s) => s !== "leads:read") });
    const r = await create({ url: URL_OK, events: ["lead.created"], include_pii: true }, noLeads.key);
    expect([r.status, r.body.code]).toEqual([403, "scope_missing"]);
    // contact.* is satisfied by conversations:read as well.
    expect((await create({ url: URL_OK, events: ["contact.*"], include_pii: true }, noLeads.key)).status).toBe(201);
    const noConv = await makeTenant(db.db, { scopes: SCOPES.filter((s) => s !== "conversations:read") });
    const c = await create({ url: URL_OK, events: ["lead.*", "conversation.*"], include_pii: true }, noConv.key);
    expect([c.status, c.body.code]).toEqual([403, "scope_missing"]);
    expect((await create({ url: URL_OK, events: ["conversation.*"], include_pii: false }, noConv.key)).status).toBe(
      201,
    );
  });

  it("refuses include_pii in the RU cell when the transfer conditions are not met (403 pii_transfer_not_allowed)", async () => {
    const x = await makeTenant(db.db);
    await db.db.update(integrations).set({ legalBasis: null }).where(eq(integrations.id, x.integrationId));
    const r = await create({ url: URL_OK, events: ["lead.*"], include_pii: true }, x.key);
    expect([r.status, r.body.code]).toEqual([403, "pii_transfer_not_allowed"]);
    expect(
      await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.tenantId, x.tenantId)),
    ).toHaveLength(0);
    expect((await create({ url: URL_OK, events: ["lead.*"] }, x.key)).status).toBe(201);
  });

  it("allows 10 subscriptions per integration and answers the 11th with 409 invalid_state", async () => {
    const x = await makeTenant(db.db);
    for (let i = 0; i < 10; i++) expect((await create({ url: URL_OK, events: ["lead.*"] }, x.key)).status).toBe(201);
    const r = await create({ url: URL_OK, events: ["lead.*"] }, x.key);
    expect([r.status, r.body.code]).toEqual([409, "invalid_state"]);
    // The limit is per integration: another integration of the tenant still may create.
    expect((await create({ url: URL_OK, events: ["lead.*"] }, await secondIntegration(x.tenantId))).status).toBe(201);
    const list = await call("GET", "/webhooks", { key: x.key });
    expect(list.body.data).toHaveLength(10);
    expect(list.body.next_cursor).toBeNull();
  });
});

describe("POST /webhooks in parallel", () => {
  it("never lets parallel creates pass the limit of 10", async () => {
    const x = await makeTenant(db.db);
    const answers = await Promise.all(
      Array.from({ length: 13 }, () => create({ url: URL_OK, events: ["lead.*"] }, x.key)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body.code])).toEqual(
      Array(3).fill([409, "invalid_state"]),
    );
    expect(
      await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.integrationId, x.integrationId)),
    ).toHaveLength(10);
  });
});

describe("GET /webhooks and GET /webhooks/{id}", () => {
  it("shows only the calling integration's subscriptions; another integration's id is 404", async () => {
    const x = await makeTenant(db.db);
    const mine = await create({ url: URL_OK, events: ["lead.*"] }, x.key);
    const secondKey = await secondIntegration(x.tenantId);
    const theirs = await create({ url: URL_OK, events: ["task.*"] }, secondKey);
    const list = await call("GET", "/webhooks", { key: x.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([mine.body.id]);
    expect(list.text).not.toContain(mine.body.secret);
    expect((await call("GET", "/webhooks", { key: secondKey })).body.data.map((w: { id: string }) => w.id)).toEqual([
      theirs.body.id,
    ]);
    const foreign = await call("GET", `/webhooks/${theirs.body.id}`, { key: x.key });
    expect([foreign.status, foreign.body.code]).toEqual([404, "not_found"]);
    for (const method of ["PATCH", "DELETE"]) {
      const r = await call(method, `/webhooks/${theirs.body.id}`, {
        key: x.key,
        json: method === "PATCH" ? { description: "mine now" } : undefined,
      });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    expect((await call("GET", "/webhooks/not-a-uuid", { key: x.key })).status).toBe(404);
    expect((await call("GET", `/webhooks/${theirs.body.id}`, { key: secondKey })).status).toBe(200);
  });

  it("walks with limit and cursor, and refuses a bad limit", async () => {
    const x = await makeTenant(db.db);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ url: URL_OK, events: ["lead.*"] }, x.key)).body.id);
    const p1 = await call("GET", "/webhooks?limit=3", { key: x.key });
    expect(p1.body.data).toHaveLength(3);
    expect(p1.body.next_cursor).toEqual(expect.any(String));
    const p2 = await call("GET", `/webhooks?limit=3&cursor=${encodeURIComponent(p1.body.next_cursor)}`, { key: x.key });
    expect(p2.body.data).toHaveLength(2);
    expect(p2.body.next_cursor).toBeNull();
    expect([...p1.body.data, ...p2.body.data].map((w: { id: string }) => w.id).sort()).toEqual(ids.sort());
    const bad = await call("GET", "/webhooks?limit=0", { key: x.key });
    expect([bad.status, bad.body.errors[0].field]).toEqual([422, "/limit"]);
  });
});

describe("PATCH /webhooks/{id}", () => {
  it("changes the given fields, pauses and resumes", async () => {
    const w = (await create({ url: URL_OK, events: ["lead.*"], description: "a" })).body;
    const r = await call("PATCH", `/webhooks/${w.id}`, {
      key: t.key,
      json: {
        description: null,
        status: "paused",
        events: ["task.*", "lead.created"],
        url: "https://other.example.com/x",
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: w.id,
      description: null,
      status: "paused",
      events: ["task.*", "lead.created"],
      url: "https://other.example.com/x",
    });
    expect(r.body.secret).toBeUndefined();
    expect(Date.parse(r.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(w.updated_at));
    const back = await call("PATCH", `/webhooks/${w.id}`, { key: t.key, json: { status: "active" } });
    expect(back.body.status).toBe("active");
  });

  it.each([
    ["an empty body", {}, "", "required"],
    ["an unknown status", { status: "deleted" }, "/status", "invalid_value"],
    ["a private url", { url: "https://intranet.example.com/" }, "/url", "private_address"],
    ["bad events", { events: ["lead.*", "lead.*"] }, "/events/1", "duplicate"],
    ["include_pii with these events", { include_pii: true }, "/include_pii", "not_allowed"],
  ])("refuses %s with 422 and changes nothing", async (_name, json, field, code) => {
    const w = (await create({ url: URL_OK, events: ["task.*"] })).body;
    const r = await call("PATCH", `/webhooks/${w.id}`, { key: t.key, json });
    expect([r.status, r.body.code]).toEqual([422, "validation_failed"]);
    expect(r.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    expect((await call("GET", `/webhooks/${w.id}`, { key: t.key })).body).toEqual(
      w.secret ? { ...w, secret: undefined } : w,
    );
  });

  it("keeps events within the pii families while include_pii is on", async () => {
    const w = (await create({ url: URL_OK, events: ["lead.*"], include_pii: true })).body;
    const r = await call("PATCH", `/webhooks/${w.id}`, { key: t.key, json: { events: ["lead.*", "task.*"] } });
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/events", code: "not_allowed" })]);
    const off = await call("PATCH", `/webhooks/${w.id}`, {
      key: t.key,
      json: { events: ["lead.*", "task.*"], include_pii: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.include_pii).toBe(false);
    const on = await call("PATCH", `/webhooks/${w.id}`, {
      key: t.key,
      json: { events: ["conversation.*"], include_pii: true },
    });
    expect(on.body).toMatchObject({ include_pii: true, events: ["conversation.*"] });
  });

  it("refuses turning include_pii on in the RU cell without transfer conditions", async () => {
    const x = await makeTenant(db.db);
    const w = (await create({ url: URL_OK, events: ["lead.*"] }, x.key)).body;
    await db.db.update(integrations).set({ piiCountry: null }).where(eq(integrations.id, x.integrationId));
    const r = await call("PATCH", `/webhooks/${w.id}`, { key: x.key, json: { include_pii: true } });
    expect([r.status, r.body.code]).toEqual([403, "pii_transfer_not_allowed"]);
  });
});

describe("DELETE /webhooks/{id}", () => {
  it("deletes the subscription with its journal; a repeat is 404", async () => {
    const w = (await create({ url: URL_OK, events: ["webhook.*"] })).body;
    const test = await call("POST", `/webhooks/${w.id}/test`, { key: t.key, idempotencyKey: idem() });
    expect(test.status).toBe(202);
    expect(await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, w.id))).toHaveLength(
      1,
    );
    const r = await call("DELETE", `/webhooks/${w.id}`, { key: t.key });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, w.id))).toHaveLength(0);
    expect(await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, w.id))).toHaveLength(
      0,
    );
    const again = await call("DELETE", `/webhooks/${w.id}`, { key: t.key });
    expect([again.status, again.body.code]).toEqual([404, "not_found"]);
  });
});

describe("POST /webhooks/{id}/rotate-secret", () => {
  it("issues a new secret, keeps the old one sealed for 24 hours, and answers a replay with secret null", async () => {
    const w = (await create({ url: URL_OK, events: ["lead.*"] })).body;
    const key = idem();
    const r = await call("POST", `/webhooks/${w.id}/rotate-secret`, { key: t.key, idempotencyKey: key });
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(w.secret);
    const rotatedAt = Date.parse(r.body.secret_rotated_at);
    expect(Math.abs(rotatedAt - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(r.body.previous_secret_expires_at) - rotatedAt).toBe(24 * 3600_000);
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, w.id));
    expect(openSecret(row.secretEnc)).toBe(r.body.secret);
    expect(openSecret(row.previousSecretEnc!)).toBe(w.secret);
    expect(row.secretEnc + row.previousSecretEnc).not.toContain(r.body.secret.slice(6));

    const replay = await call("POST", `/webhooks/${w.id}/rotate-secret`, { key: t.key, idempotencyKey: key });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ ...r.body, secret: null });
    const [same] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, w.id));
    expect(same.secretEnc).toBe(row.secretEnc);

    const missing = await call("POST", `/webhooks/${w.id}/rotate-secret`, { key: t.key });
    expect([missing.status, missing.body.code]).toEqual([400, "idempotency_key_required"]);

    // After the window the Webhook shows no previous secret.
    const later = Date.now() + 24 * 3600_000 + 1000;
    setClock(() => later);
    const read = await call("GET", `/webhooks/${w.id}`, { key: t.key });
    setClock(undefined);
    expect(read.body.previous_secret_expires_at).toBeNull();
    expect(read.body.secret_rotated_at).toBe(r.body.secret_rotated_at);
  });
});

describe("POST /webhooks/{id}/test", () => {
  it("queues webhook.test for this subscription only, with livemode false; a replay answers the same event", async () => {
    const x = await makeTenant(db.db);
    const w = (await create({ url: URL_OK, events: ["lead.*"] }, x.key)).body;
    const other = (await create({ url: URL_OK, events: ["webhook.*"] }, x.key)).body;
    const key = idem();
    const r = await call("POST", `/webhooks/${w.id}/test`, { key: x.key, idempotencyKey: key });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "webhook.test",
      status: "queued",
    });
    const [ev] = await db.db.select().from(events).where(eq(events.id, r.body.event_id));
    // The row lives in the subscription's world (live here, so the sandbox never holds a live subscription's
    // id); what the receiver is told is livemode false, in every mode (spec "Delivery format").
    expect(ev).toMatchObject({
      tenantId: x.tenantId,
      type: "webhook.test",
      livemode: true,
      data: { webhook_id: w.id },
    });
    expect(buildEnvelope(ev).livemode).toBe(false);
    const ds = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, r.body.event_id));
    expect(ds.map((d) => [d.subscriptionId, d.state, d.attempt])).toEqual([[w.id, "pending", 0]]);
    expect(ds[0].nextAttemptAt).not.toBeNull();
    expect(other.id).not.toBe(w.id);

    const replay = await call("POST", `/webhooks/${w.id}/test`, { key: x.key, idempotencyKey: key });
    expect([replay.status, replay.body]).toEqual([202, r.body]);
    expect(await db.db.select().from(events).where(eq(events.tenantId, x.tenantId))).toHaveLength(1);
  });

  it("answers 409 invalid_state for a paused subscription and queues nothing", async () => {
    const x = await makeTenant(db.db);
    const w = (await create({ url: URL_OK, events: ["lead.*"] }, x.key)).body;
    await call("PATCH", `/webhooks/${w.id}`, { key: x.key, json: { status: "paused" } });
    const r = await call("POST", `/webhooks/${w.id}/test`, { key: x.key, idempotencyKey: idem() });
    expect([r.status, r.body.code]).toEqual([409, "invalid_state"]);
    expect(await db.db.select().from(events).where(eq(events.tenantId, x.tenantId))).toHaveLength(0);
    const noKey = await call("POST", `/webhooks/${w.id}/test`, { key: x.key });
    expect([noKey.status, noKey.body.code]).toEqual([400, "idempotency_key_required"]);
  });
});
