import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { events, webhookDeliveries, webhookDeliveryAttempts, webhookSubscriptions } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import { addMembership, createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { buildEnvelope } from "@/server/webhook-transport/envelope";
import { openSecret } from "@/server/webhook-transport/secret-box";
import { setHostResolver } from "@/server/webhook-transport/url-check";
import { createCaller } from "./root";

// The console's webhook procedures: the same services as /v1/webhooks, behind the staff member's tenant
// and the manage_webhooks right; secrets shown once; the journal, a delivery's attempt log and the manual
// resend of dead or failed rows (one, or every dead one since a moment).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let b: TenantFixture;
type Staff = { id: string; email: string; name: string };
const staff: Record<"hooks" | "pii" | "noRight" | "other", Staff> = {
  hooks: { id: "", email: "hooks@a.example", name: "H" },
  pii: { id: "", email: "pii@a.example", name: "PII" },
  noRight: { id: "", email: "plain@a.example", name: "P" },
  other: { id: "", email: "hooks@b.example", name: "B" },
};
const URL_OK = "https://hooks.example.com/in";
const HOSTS: Record<string, string[]> = {
  "hooks.example.com": ["93.184.216.34"],
  "other.example.com": ["93.184.216.35"],
  "intranet.example.com": ["10.0.0.1"],
};

const as = (s: Staff) => createCaller({ db: db.db, staff: s });
const A = () => as(staff.hooks).webhooks;

async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}
const catalogCode = (e: TRPCError) => (e.cause instanceof ApiError ? e.cause.code : null);
const fieldsOf = (e: TRPCError) => (e.cause as ApiError).extras.errors?.map((f) => f.field);

async function newSub(t: TenantFixture = a, who: Staff = staff.hooks, url = URL_OK) {
  return as(who).webhooks.create({
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    url,
    events: ["lead.*", "task.created"],
    description: "CRM",
  });
}

/** A delivery of `subId` in `state`, queued through the test event as the API would. */
async function deliveryIn(t: TenantFixture, subId: string, state: string, who: Staff = staff.hooks): Promise<string> {
  const { eventId } = await as(who).webhooks.sendTest({ tenantId: t.tenantId, subscriptionId: subId });
  const [d] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
  await db.db
    .update(webhookDeliveries)
    .set({
      state,
      attempt: state === "pending" ? 0 : 9,
      statusCode: 500,
      durationMs: 120,
      error: "http_500",
      nextAttemptAt: state === "dead" || state === "delivered" ? null : new Date(Date.now() + 3_600_000),
    })
    .where(eq(webhookDeliveries.id, d.id));
  return d.id;
}

beforeAll(async () => {
  db = await openTestDatabase();
  setHostResolver(async (host) => {
    const list = HOSTS[host];
    if (!list) throw new Error("ENOTFOUND");
    return list.map((address) => ({ address, family: 4 }));
  });
  a = await makeTenant(db.db);
  b = await makeTenant(db.db);
  staff.hooks.id = (
    await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: staff.hooks.email,
      password: "correct-horse-battery",
      name: "H",
      role: "admin",
      rights: ["manage_webhooks"],
    })
  ).staffUserId;
  staff.pii.id = (
    await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: staff.pii.email,
      password: "correct-horse-battery",
      name: "PII",
      role: "admin",
      rights: ["manage_webhooks", "view_personal_data"],
    })
  ).staffUserId;
  staff.noRight.id = (
    await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: staff.noRight.email,
      password: "correct-horse-battery",
      name: "P",
      role: "admin",
      rights: ["manage_integrations"],
    })
  ).staffUserId;
  staff.other.id = (
    await createStaffMember(db.db, {
      tenantId: b.tenantId,
      email: staff.other.email,
      password: "correct-horse-battery",
      name: "B",
    })
  ).staffUserId;
});
// A fresh tenant A per test (same staff users, new memberships), so the 10-subscription limit of one
// test never reaches another.
beforeEach(async () => {
  a = await makeTenant(db.db);
  await addMembership(db.db, {
    tenantId: a.tenantId,
    staffUserId: staff.hooks.id,
    role: "admin",
    rights: ["manage_webhooks"],
  });
  await addMembership(db.db, {
    tenantId: a.tenantId,
    staffUserId: staff.noRight.id,
    role: "admin",
    rights: ["manage_integrations"],
  });
});
afterAll(async () => {
  setHostResolver(undefined);
  await db.drop();
});

describe("subscriptions", () => {
  it("creates one with its secret shown once and stored only sealed", async () => {
    const r = await newSub();
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.webhook).toMatchObject({
      url: URL_OK,
      events: ["lead.*", "task.created"],
      include_pii: false,
      description: "CRM",
      status: "active",
      previous_secret_expires_at: null,
    });
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, r.webhook.id));
    expect(row).toMatchObject({ tenantId: a.tenantId, integrationId: a.integrationId, url: URL_OK, status: "active" });
    expect(row.secretEnc).not.toContain(r.secret);
    expect(openSecret(row.secretEnc)).toBe(r.secret);
    const list = await A().list({ tenantId: a.tenantId, integrationId: a.integrationId });
    expect(list.map((w) => w.id)).toContain(r.webhook.id);
    expect(JSON.stringify(list)).not.toContain(r.secret);
    expect(JSON.stringify(list)).not.toContain("whsec_");
  });

  it("refuses invalid fields with pointers into the form", async () => {
    const bad = await rejects(
      A().create({
        tenantId: a.tenantId,
        integrationId: a.integrationId,
        url: "",
        events: ["nope.event", "lead.*", "lead.*"],
        description: "x".repeat(201),
      }),
    );
    expect(bad.code).toBe("BAD_REQUEST");
    expect(catalogCode(bad)).toBe("validation_failed");
    expect(fieldsOf(bad)).toEqual(expect.arrayContaining(["/url", "/events/0", "/events/2", "/description"]));
    const http = await rejects(
      A().create({
        tenantId: a.tenantId,
        integrationId: a.integrationId,
        url: "http://hooks.example.com/in",
        events: ["lead.*"],
      }),
    );
    expect(fieldsOf(http)).toEqual(["/url"]);
    const intranet = await rejects(
      A().create({
        tenantId: a.tenantId,
        integrationId: a.integrationId,
        url: "https://intranet.example.com/in",
        events: ["lead.*"],
      }),
    );
    expect(fieldsOf(intranet)).toEqual(["/url"]);
    const pii = await rejects(
      A().create({
        tenantId: a.tenantId,
        integrationId: a.integrationId,
        url: URL_OK,
        events: ["task.created"],
        include_pii: true,
      }),
    );
    expect(fieldsOf(pii)).toEqual(["/include_pii"]);
    const empty = await rejects(A().update({ tenantId: a.tenantId, subscriptionId: (await newSub()).webhook.id }));
    expect(catalogCode(empty)).toBe("validation_failed");
  });

  it("applies the API's personal-data rules to include_pii", async () => {
    // Setting include_pii needs view_personal_data (SECURITY.md "Rights"; rights.int.test.ts); this staff
    // member holds it, so what is proven here is the API's own rules.
    const P = () => as(staff.pii).webhooks;
    await addMembership(db.db, {
      tenantId: a.tenantId,
      staffUserId: staff.pii.id,
      role: "admin",
      rights: ["manage_webhooks", "view_personal_data"],
    });
    // Tenant A's integration has no IP allowlist: on the RU cell personal data may not leave.
    const err = await rejects(
      P().create({
        tenantId: a.tenantId,
        integrationId: a.integrationId,
        url: URL_OK,
        events: ["lead.*"],
        include_pii: true,
      }),
    );
    expect([err.code, catalogCode(err)]).toEqual(["FORBIDDEN", "pii_transfer_not_allowed"]);
    expect(
      await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.integrationId, a.integrationId)),
    ).toEqual([]);
    // With a narrow allowlist, a Russian recipient and a legal basis it is allowed, as on the API.
    const c = await makeTenant(db.db, { integration: { ipAllowlist: ["203.0.113.10"] } });
    await addMembership(db.db, {
      tenantId: c.tenantId,
      staffUserId: staff.pii.id,
      role: "admin",
      rights: ["manage_webhooks", "view_personal_data"],
    });
    const ok = await P().create({
      tenantId: c.tenantId,
      integrationId: c.integrationId,
      url: URL_OK,
      events: ["lead.*"],
      include_pii: true,
    });
    expect(ok.webhook.include_pii).toBe(true);
    // Events outside the personal-data families while include_pii stays on: refused on /events.
    const wider = await rejects(
      P().update({ tenantId: c.tenantId, subscriptionId: ok.webhook.id, events: ["task.created"] }),
    );
    expect(fieldsOf(wider)).toEqual(["/events"]);
    const both = await P().update({
      tenantId: c.tenantId,
      subscriptionId: ok.webhook.id,
      events: ["task.created"],
      include_pii: false,
    });
    expect(both).toMatchObject({ events: ["task.created"], include_pii: false });
  });

  it("puts include_pii under the RU rule by the tenant's cell, not the cell of the process serving the console", async () => {
    // An EN tenant's integration with a recipient outside Russia and no allowlist, on a process of the RU cell.
    const en = await makeTenant(db.db, { cell: "en", integration: { piiCountry: "DE" } });
    // Setting include_pii needs view_personal_data: act as the member holding it, in both tenants.
    const P = () => as(staff.pii).webhooks;
    for (const tenantId of [en.tenantId, a.tenantId])
      await addMembership(db.db, {
        tenantId,
        staffUserId: staff.pii.id,
        role: "admin",
        rights: ["manage_webhooks", "view_personal_data"],
      });
    const ok = await P().create({
      tenantId: en.tenantId,
      integrationId: en.integrationId,
      url: URL_OK,
      events: ["lead.*"],
      include_pii: true,
    });
    expect(ok.webhook.include_pii).toBe(true);
    // An RU tenant's integration without an allowlist, on a process of the EN cell: still refused.
    setTestEnv({ CELL: "en" });
    try {
      const err = await rejects(
        P().create({
          tenantId: a.tenantId,
          integrationId: a.integrationId,
          url: URL_OK,
          events: ["lead.*"],
          include_pii: true,
        }),
      );
      expect([err.code, catalogCode(err)]).toEqual(["FORBIDDEN", "pii_transfer_not_allowed"]);
    } finally {
      setTestEnv();
    }
    expect(
      await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.integrationId, a.integrationId)),
    ).toEqual([]);
  });

  it("refuses the 11th subscription of an integration", async () => {
    for (let i = 0; i < 10; i++) await newSub();
    const err = await rejects(newSub());
    expect([err.code, catalogCode(err)]).toEqual(["CONFLICT", "invalid_state"]);
    expect(await A().list({ tenantId: a.tenantId, integrationId: a.integrationId })).toHaveLength(10);
  });

  it("edits, pauses and resumes", async () => {
    const { webhook } = await newSub();
    const w = await A().update({
      tenantId: a.tenantId,
      subscriptionId: webhook.id,
      url: "https://other.example.com/x",
      events: ["article.*"],
      description: null,
    });
    expect(w).toMatchObject({ url: "https://other.example.com/x", events: ["article.*"], description: null });
    expect((await A().setStatus({ tenantId: a.tenantId, subscriptionId: webhook.id, status: "paused" })).status).toBe(
      "paused",
    );
    expect(
      (await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhook.id)))[0],
    ).toMatchObject({ status: "paused", url: "https://other.example.com/x", description: null });
    // A paused subscription takes no test event (spec: test requires active).
    const paused = await rejects(A().sendTest({ tenantId: a.tenantId, subscriptionId: webhook.id }));
    expect(paused.code).toBe("CONFLICT");
    expect(catalogCode(paused)).toBe("invalid_state");
    expect((await A().setStatus({ tenantId: a.tenantId, subscriptionId: webhook.id, status: "active" })).status).toBe(
      "active",
    );
  });

  it("Resume (setStatus active) of a subscription the platform paused for failing clears paused_reason and sends what waited at once (issue 75 item 4)", async () => {
    const { webhook } = await newSub();
    expect(webhook.paused_reason).toBeNull();
    const waiting = await deliveryIn(a, webhook.id, "failed");
    await db.db
      .update(webhookSubscriptions)
      .set({ status: "paused", pausedReason: "failing", failingSince: new Date(Date.now() - 4 * 86_400_000) })
      .where(eq(webhookSubscriptions.id, webhook.id));
    const [listed] = (await A().list({ tenantId: a.tenantId, integrationId: a.integrationId })).filter(
      (w) => w.id === webhook.id,
    );
    expect(listed).toMatchObject({ status: "paused", paused_reason: "failing" });

    const announced: string[] = [];
    const stop = registerWorkListener({
      deliveriesDue: (ids) => void announced.push(...ids),
      exchangeResumed: () => {},
    });
    const before = Date.now();
    const resumed = await A()
      .setStatus({ tenantId: a.tenantId, subscriptionId: webhook.id, status: "active" })
      .finally(stop);
    expect(resumed).toMatchObject({ status: "active", paused_reason: null });
    const [sub] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhook.id));
    expect(sub).toMatchObject({ status: "active", pausedReason: null, failingSince: null });
    const [d] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, waiting));
    expect(d).toMatchObject({ state: "failed", attempt: 9 });
    expect(d.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before);
    expect(d.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(announced).toEqual([waiting]);
  });

  it("rotates the secret: a new one shown once, the old one kept for the 24-hour window", async () => {
    const { webhook, secret } = await newSub();
    const r = await A().rotateSecret({ tenantId: a.tenantId, subscriptionId: webhook.id });
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(secret);
    expect(Date.parse(r.webhook.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhook.id));
    expect(openSecret(row.secretEnc)).toBe(r.secret);
    expect(openSecret(row.previousSecretEnc!)).toBe(secret);
  });

  it("queues a test event for this subscription only", async () => {
    const { webhook } = await newSub();
    const { eventId } = await A().sendTest({ tenantId: a.tenantId, subscriptionId: webhook.id });
    const [ev] = await db.db.select().from(events).where(eq(events.id, eventId));
    // The row lives in the subscription's world (live here, so the sandbox never holds a live subscription's
    // id); what the receiver is told is livemode false, in every mode (spec "Delivery format").
    expect(ev).toMatchObject({ tenantId: a.tenantId, type: "webhook.test", livemode: true });
    expect(buildEnvelope(ev!).livemode).toBe(false);
    const ds = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
    expect(ds).toMatchObject([{ subscriptionId: webhook.id, state: "pending", attempt: 0 }]);
  });

  it("deletes with its journal; a repeat is not found", async () => {
    const { webhook } = await newSub();
    const d = await deliveryIn(a, webhook.id, "dead");
    expect(await A().remove({ tenantId: a.tenantId, subscriptionId: webhook.id })).toEqual({ id: webhook.id });
    expect(await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhook.id))).toEqual([]);
    expect(await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d))).toEqual([]);
    const again = await rejects(A().remove({ tenantId: a.tenantId, subscriptionId: webhook.id }));
    expect([again.code, catalogCode(again)]).toEqual(["NOT_FOUND", "not_found"]);
  });
});

describe("journal and resend", () => {
  it("lists newest first with the event type, filters by state and pages on", async () => {
    const { webhook } = await newSub();
    const dead = await deliveryIn(a, webhook.id, "dead");
    const failed = await deliveryIn(a, webhook.id, "failed");
    const pending = await deliveryIn(a, webhook.id, "pending");
    const all = await A().deliveries({ tenantId: a.tenantId, subscriptionId: webhook.id });
    expect(all.items.map((d) => d.id)).toEqual([pending, failed, dead]);
    expect(all.items[2]).toMatchObject({
      event_type: "webhook.test",
      state: "dead",
      attempt: 9,
      status_code: 500,
      duration_ms: 120,
      error: "http_500",
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(all.next).toBeNull();
    expect(
      (await A().deliveries({ tenantId: a.tenantId, subscriptionId: webhook.id, state: "failed" })).items.map(
        (d) => d.id,
      ),
    ).toEqual([failed]);
    const p1 = await A().deliveries({ tenantId: a.tenantId, subscriptionId: webhook.id, limit: 2 });
    expect(p1.items.map((d) => d.id)).toEqual([pending, failed]);
    const p2 = await A().deliveries({ tenantId: a.tenantId, subscriptionId: webhook.id, limit: 2, cursor: p1.next });
    expect(p2.items.map((d) => d.id)).toEqual([dead]);
    expect(p2.next).toBeNull();
  });

  it("resends a dead delivery: pending, attempt 0, due now, error cleared, driver woken", async () => {
    const { webhook } = await newSub();
    const id = await deliveryIn(a, webhook.id, "dead");
    let wakes = 0;
    const off = registerWorkListener({ deliveriesDue: () => void wakes++, exchangeResumed: () => {} });
    try {
      const r = await A().resend({ tenantId: a.tenantId, deliveryId: id });
      expect(r).toMatchObject({ id, state: "pending", attempt: 0, error: null });
    } finally {
      off();
    }
    expect(wakes).toBe(1);
    const [row] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    expect(row).toMatchObject({ state: "pending", attempt: 0, error: null, statusCode: null, lockedUntil: null });
    expect(row.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("resends a failed delivery too (issue 75 item 3): a new cycle instead of waiting for its next retry", async () => {
    const { webhook } = await newSub();
    const id = await deliveryIn(a, webhook.id, "failed");
    const r = await A().resend({ tenantId: a.tenantId, deliveryId: id });
    expect(r).toMatchObject({ id, state: "pending", attempt: 0, error: null, status_code: null });
  });

  it.each(["pending", "delivered"])("refuses to resend a %s delivery and leaves it as it was", async (state) => {
    const { webhook } = await newSub();
    const id = await deliveryIn(a, webhook.id, state);
    const [before] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    const err = await rejects(A().resend({ tenantId: a.tenantId, deliveryId: id }));
    expect([err.code, catalogCode(err)]).toEqual(["CONFLICT", "invalid_state"]);
    expect((await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]).toEqual(before);
  });
});

describe("attempt log and bulk resend (issue 75 items 2 and 3)", () => {
  it("shows a delivery with its attempts, oldest first", async () => {
    const { webhook } = await newSub();
    const id = await deliveryIn(a, webhook.id, "failed");
    const t0 = Date.now() - 120_000;
    await db.db.insert(webhookDeliveryAttempts).values(
      [503, 500].map((status, i) => ({
        tenantId: a.tenantId,
        deliveryId: id,
        attemptedAt: new Date(t0 + i * 60_000),
        durationMs: 40 + i,
        responseStatus: status,
        responseHeaders: { "content-type": "text/plain", "retry-after": "60" },
        responseBody: `answer ${i}`,
        error: `http_${status}`,
      })),
    );
    const d = await A().delivery({ tenantId: a.tenantId, subscriptionId: webhook.id, deliveryId: id });
    expect(d).toMatchObject({ id, state: "failed", error: "http_500" });
    expect(d.attempts).toEqual([
      {
        attempted_at: new Date(t0).toISOString(),
        duration_ms: 40,
        response_status: 503,
        response_headers: { "content-type": "text/plain", "retry-after": "60" },
        response_body: "answer 0",
        error: "http_503",
      },
      {
        attempted_at: new Date(t0 + 60_000).toISOString(),
        duration_ms: 41,
        response_status: 500,
        response_headers: { "content-type": "text/plain", "retry-after": "60" },
        response_body: "answer 1",
        error: "http_500",
      },
    ]);
    const other = await newSub();
    const err = await rejects(A().delivery({ tenantId: a.tenantId, subscriptionId: other.webhook.id, deliveryId: id }));
    expect([err.code, catalogCode(err)]).toEqual(["NOT_FOUND", "not_found"]);
  });

  it("resends every dead delivery of the subscription created since the moment, and says how many", async () => {
    const { webhook } = await newSub();
    const other = await newSub();
    const oldDead = await deliveryIn(a, webhook.id, "dead");
    const dead1 = await deliveryIn(a, webhook.id, "dead");
    const dead2 = await deliveryIn(a, webhook.id, "dead");
    const failed = await deliveryIn(a, webhook.id, "failed");
    const delivered = await deliveryIn(a, webhook.id, "delivered");
    const elsewhere = await deliveryIn(a, other.webhook.id, "dead");
    const since = new Date(Date.now() - 24 * 3_600_000);
    await db.db
      .update(webhookDeliveries)
      .set({ createdAt: new Date(since.getTime() - 60_000) })
      .where(eq(webhookDeliveries.id, oldDead));
    let announced: string[] = [];
    const off = registerWorkListener({ deliveriesDue: (ids) => void (announced = ids), exchangeResumed: () => {} });
    try {
      const r = await A().resendDeadSince({
        tenantId: a.tenantId,
        subscriptionId: webhook.id,
        since: since.toISOString(),
      });
      expect(r).toEqual({ resent: 2 });
    } finally {
      off();
    }
    expect(announced.sort()).toEqual([dead1, dead2].sort());
    const states = Object.fromEntries(
      (await db.db.select().from(webhookDeliveries)).map((d) => [d.id, [d.state, d.attempt]]),
    );
    expect(states[dead1]).toEqual(["pending", 0]);
    expect(states[dead2]).toEqual(["pending", 0]);
    expect(states[oldDead]).toEqual(["dead", 9]);
    expect(states[failed]).toEqual(["failed", 9]);
    expect(states[delivered]).toEqual(["delivered", 9]);
    expect(states[elsewhere]).toEqual(["dead", 9]);
    // Nothing dead is left since then: a second run resends none.
    expect(
      await A().resendDeadSince({ tenantId: a.tenantId, subscriptionId: webhook.id, since: since.toISOString() }),
    ).toEqual({ resent: 0 });
  });
});

describe("rights and tenant isolation", () => {
  it("needs manage_webhooks for every procedure", async () => {
    const { webhook } = await newSub();
    const w = as(staff.noRight).webhooks;
    const t = a.tenantId;
    // Thunks: each call starts only when awaited, so no refusal is left unhandled meanwhile.
    const calls: (() => Promise<unknown>)[] = [
      () => w.list({ tenantId: t, integrationId: a.integrationId }),
      () => w.create({ tenantId: t, integrationId: a.integrationId, url: URL_OK, events: ["lead.*"] }),
      () => w.update({ tenantId: t, subscriptionId: webhook.id, description: "x" }),
      () => w.setStatus({ tenantId: t, subscriptionId: webhook.id, status: "paused" }),
      () => w.rotateSecret({ tenantId: t, subscriptionId: webhook.id }),
      () => w.sendTest({ tenantId: t, subscriptionId: webhook.id }),
      () => w.remove({ tenantId: t, subscriptionId: webhook.id }),
      () => w.deliveries({ tenantId: t, subscriptionId: webhook.id }),
      () => w.resend({ tenantId: t, deliveryId: crypto.randomUUID() }),
      () => w.delivery({ tenantId: t, subscriptionId: webhook.id, deliveryId: crypto.randomUUID() }),
      () => w.resendDeadSince({ tenantId: t, subscriptionId: webhook.id, since: new Date().toISOString() }),
    ];
    for (const c of calls) {
      const err = await rejects(c());
      expect(err.code).toBe("FORBIDDEN");
      expect(err.message).toContain("manage_webhooks");
    }
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhook.id));
    expect(row).toMatchObject({ status: "active", description: "CRM" });
  });

  it("reads another tenant's integration, subscription and delivery as not found", async () => {
    const { webhook } = await newSub(b, staff.other);
    const dead = await deliveryIn(b, webhook.id, "dead", staff.other);
    const t = a.tenantId;
    // Thunks: each call starts only when awaited, so no refusal is left unhandled meanwhile.
    const calls: (() => Promise<unknown>)[] = [
      () => A().list({ tenantId: t, integrationId: b.integrationId }),
      () => A().create({ tenantId: t, integrationId: b.integrationId, url: URL_OK, events: ["lead.*"] }),
      () => A().update({ tenantId: t, subscriptionId: webhook.id, description: "x" }),
      () => A().setStatus({ tenantId: t, subscriptionId: webhook.id, status: "paused" }),
      () => A().rotateSecret({ tenantId: t, subscriptionId: webhook.id }),
      () => A().sendTest({ tenantId: t, subscriptionId: webhook.id }),
      () => A().remove({ tenantId: t, subscriptionId: webhook.id }),
      () => A().deliveries({ tenantId: t, subscriptionId: webhook.id }),
      () => A().resend({ tenantId: t, deliveryId: dead }),
      () => A().delivery({ tenantId: t, subscriptionId: webhook.id, deliveryId: dead }),
      () => A().resendDeadSince({ tenantId: t, subscriptionId: webhook.id, since: new Date(0).toISOString() }),
      // Naming the other tenant itself is refused by the membership check.
      () => A().list({ tenantId: b.tenantId, integrationId: b.integrationId }),
    ];
    for (const c of calls) {
      const err = await rejects(c());
      expect([err.code, catalogCode(err)]).toEqual(["NOT_FOUND", "not_found"]);
    }
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhook.id));
    expect(row).toMatchObject({ status: "active", description: "CRM", previousSecretEnc: null });
    expect((await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, dead)))[0].state).toBe("dead");
    expect(
      await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.integrationId, b.integrationId)),
    ).toHaveLength(1);
  });
});
