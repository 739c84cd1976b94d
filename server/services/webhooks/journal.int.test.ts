import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let subId: string;
let otherSubId: string;
let eventId: string;
const DAY = 24 * 3600_000;
const base = Date.now();
/** Journal rows by name, with their age. */
const rows: { id: string; state: string; ageMs: number }[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  const mk = async (tf: TenantFixture) =>
    (
      await db.db
        .insert(webhookSubscriptions)
        .values({
          tenantId: tf.tenantId,
          integrationId: tf.integrationId,
          url: "https://hooks.example.com/x",
          events: ["lead.*"],
          secretEnc: sealSecret(newSigningSecret()),
        })
        .returning()
    )[0].id;
  subId = await mk(t);
  otherSubId = await mk(t);
  [{ id: eventId }] = await db.db
    .insert(events)
    .values({ tenantId: t.tenantId, type: "lead.created", data: {} })
    .returning({ id: events.id });
  const plan: [string, number][] = [
    ["pending", 1000],
    ["delivered", 2000],
    ["failed", 3000],
    ["dead", 4000],
    ["failed", 5000],
    ["delivered", 29 * DAY],
    ["delivered", 31 * DAY], // beyond the 30-day journal: never shown
  ];
  for (const [state, ageMs] of plan) {
    const createdAt = new Date(base - ageMs);
    const [r] = await db.db
      .insert(webhookDeliveries)
      .values({
        tenantId: t.tenantId,
        subscriptionId: subId,
        eventId,
        eventType: "lead.created",
        state,
        attempt: state === "pending" ? 0 : 3,
        statusCode: state === "delivered" ? 200 : state === "pending" ? null : 500,
        durationMs: state === "pending" ? null : 120,
        error: state === "failed" || state === "dead" ? "http_500" : null,
        nextAttemptAt: state === "pending" || state === "failed" ? new Date(base + 60_000) : null,
        deliveredAt: state === "delivered" ? createdAt : null,
        createdAt,
      })
      .returning({ id: webhookDeliveries.id });
    rows.push({ id: r.id, state, ageMs });
  }
  // Another subscription's journal never shows here.
  await db.db.insert(webhookDeliveries).values({
    tenantId: t.tenantId,
    subscriptionId: otherSubId,
    eventId,
    eventType: "lead.created",
    createdAt: new Date(base),
  });
});
afterAll(async () => db.drop());

const path = () => `/webhooks/${subId}/deliveries`;
const visible = () => rows.filter((r) => r.ageMs < 30 * DAY).sort((a, b) => a.ageMs - b.ageMs);

describe("GET /webhooks/{id}/deliveries", () => {
  it("lists the journal newest first with exactly the spec's fields, without rows older than 30 days", async () => {
    const r = await call("GET", path(), { key: t.key });
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(visible().map((x) => x.id));
    const first = r.body.data[0];
    expect(Object.keys(first).sort()).toEqual([
      "attempt",
      "created_at",
      "delivered_at",
      "duration_ms",
      "error",
      "event_id",
      "id",
      "next_attempt_at",
      "state",
      "status_code",
    ]);
    expect(first).toMatchObject({
      event_id: eventId,
      state: "pending",
      attempt: 0,
      status_code: null,
      duration_ms: null,
      error: null,
      delivered_at: null,
    });
    expect(first.next_attempt_at).toBe(new Date(base + 60_000).toISOString());
    expect(r.body.data[1]).toMatchObject({
      state: "delivered",
      status_code: 200,
      duration_ms: 120,
      error: null,
      next_attempt_at: null,
    });
    expect(r.body.data[2]).toMatchObject({ state: "failed", status_code: 500, error: "http_500", attempt: 3 });
  });

  it("filters by state", async () => {
    for (const state of ["pending", "delivered", "failed", "dead"]) {
      const r = await call("GET", `${path()}?state=${state}`, { key: t.key });
      expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(
        visible()
          .filter((x) => x.state === state)
          .map((x) => x.id),
      );
    }
    const bad = await call("GET", `${path()}?state=lost`, { key: t.key });
    expect([bad.status, bad.body.code]).toEqual([422, "validation_failed"]);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: "/state" })]);
  });

  it("walks pages with a cursor bound to the filter", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const r = await call("GET", path() + q, { key: t.key });
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((d: { id: string }) => d.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(visible().map((x) => x.id));
    expect(pages).toBe(3);

    const failed = await call("GET", `${path()}?state=failed&limit=1`, { key: t.key });
    expect(failed.body.next_cursor).toEqual(expect.any(String));
    const changed = await call("GET", `${path()}?state=dead&cursor=${encodeURIComponent(failed.body.next_cursor)}`, {
      key: t.key,
    });
    expect([changed.status, changed.body.errors[0].field]).toEqual([422, "/cursor"]);
    const otherSub = await call(
      "GET",
      `/webhooks/${otherSubId}/deliveries?state=failed&cursor=${encodeURIComponent(failed.body.next_cursor)}`,
      { key: t.key },
    );
    expect([otherSub.status, otherSub.body.errors[0].field]).toEqual([422, "/cursor"]);
    const next = await call(
      "GET",
      `${path()}?state=failed&limit=1&cursor=${encodeURIComponent(failed.body.next_cursor)}`,
      { key: t.key },
    );
    expect(next.body.data.map((d: { id: string }) => d.id)).toEqual([
      visible().filter((x) => x.state === "failed")[1].id,
    ]);
  });

  it("uses limit default 25 and refuses limits outside 1 to 100", async () => {
    for (const limit of ["0", "101", "x"]) {
      const r = await call("GET", `${path()}?limit=${limit}`, { key: t.key });
      expect([r.status, r.body.errors[0].field]).toEqual([422, "/limit"]);
    }
  });

  it("answers 404 for another integration of the same tenant and for a missing subscription", async () => {
    const i = await createIntegration(db.db, t.tenantId, {
      name: "Second",
      scopes: [...SCOPES],
      piiCountry: "RU",
      legalBasis: "contract",
    });
    const { key } = await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] });
    const foreign = await call("GET", path(), { key });
    const missing = await call("GET", `/webhooks/${crypto.randomUUID()}/deliveries`, { key: t.key });
    expect([foreign.status, foreign.body.code]).toEqual([404, "not_found"]);
    expect([missing.status, missing.body.code]).toEqual([404, "not_found"]);
  });
});
