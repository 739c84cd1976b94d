import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  contacts,
  conversations,
  disclosures,
  integrations,
  leads,
  webhookDeliveries,
  webhookSubscriptions,
} from "@/db/schema";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

// include_pii (spec "Events", after the table): the contact is added to conversation.created,
// conversation.handoff_requested, conversation.summary_ready, lead.* and contact.merged; each such
// delivery enters the disclosure journal; everything else stays thin.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let a: TenantFixture;
let contactId: string;
let leadId: string;
let conversationId: string;
let mailboxConversationId: string;

async function subscribe(t: TenantFixture, events: string[], includePii: boolean) {
  const [row] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: rx.url,
      events,
      includePii,
      status: "active",
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  return row!.id;
}

/** Queues `type` for one subscription and runs one attempt; returns the body the receiver got. */
async function deliver(subscriptionId: string, type: string, data: Record<string, unknown>) {
  rx.requests.length = 0;
  const r = await recordEventWithDeliveries(
    db.db,
    { tenantId: a.tenantId, livemode: true, type, data },
    { onlySubscriptionId: subscriptionId },
  );
  const deliveryId = r.deliveryIds[0]!;
  const out = await attemptDelivery(db.db, deliveryId, new Date(), { client });
  expect(out.state).toBe("delivered");
  expect(rx.requests).toHaveLength(1);
  return { body: JSON.parse(rx.requests[0]!.body) as { data: Record<string, unknown> }, deliveryId };
}

const journalOf = (deliveryId: string) =>
  db.db
    .select()
    .from(disclosures)
    .where(eq(disclosures.requestId, `delivery:${deliveryId}`));

const CONTACT = {
  id: "",
  first_name: "Anna",
  last_name: "Petrova",
  email: "anna@example.ru",
  phone: "+79990000000",
  tags: ["vip"],
  geo_country: "RU",
  geo_city: "Kazan",
};

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  a = await makeTenant(db.db);
  const [c] = await db.db
    .insert(contacts)
    .values({
      tenantId: a.tenantId,
      firstName: "Anna",
      lastName: "Petrova",
      email: "anna@example.ru",
      phone: "+79990000000",
      tags: ["vip"],
      geoCountry: "RU",
      geoCity: "Kazan",
    })
    .returning({ id: contacts.id });
  contactId = c!.id;
  CONTACT.id = contactId;
  const [conv] = await db.db
    .insert(conversations)
    .values({ tenantId: a.tenantId, channelType: "api", contactId })
    .returning({ id: conversations.id });
  conversationId = conv!.id;
  const [mail] = await db.db
    .insert(conversations)
    .values({ tenantId: a.tenantId, channelType: "email", kind: "personal_mailbox", contactId })
    .returning({ id: conversations.id });
  mailboxConversationId = mail!.id;
  const [l] = await db.db
    .insert(leads)
    .values({ tenantId: a.tenantId, contactId, conversationId })
    .returning({ id: leads.id });
  leadId = l!.id;
});
afterEach(async () => {
  await db.db
    .update(integrations)
    .set({ piiCountry: "RU", status: "active" })
    .where(eq(integrations.id, a.integrationId));
});
afterAll(async () => {
  await client.close();
  await rx.stop();
  await db.drop();
});

describe("include_pii deliveries", () => {
  it("lead.* carries the lead's contact, and the delivery is written to the disclosure journal", async () => {
    const sub = await subscribe(a, ["lead.*"], true);
    const { body, deliveryId } = await deliver(sub, "lead.created", {
      lead_id: leadId,
      contact_id: contactId,
      conversation_id: conversationId,
      version: 1,
    });
    expect(body.data).toEqual({
      lead_id: leadId,
      contact_id: contactId,
      conversation_id: conversationId,
      version: 1,
      contact: CONTACT,
    });
    const rows = await journalOf(deliveryId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenantId: a.tenantId,
      integrationId: a.integrationId,
      apiKeyId: null,
      route: "webhook lead.created",
      resourceType: "contact",
      resourceIds: [contactId],
    });
  });

  it("conversation.created, handoff_requested and summary_ready carry the conversation's contact", async () => {
    const sub = await subscribe(a, ["conversation.*"], true);
    for (const type of ["conversation.created", "conversation.handoff_requested", "conversation.summary_ready"]) {
      const { body, deliveryId } = await deliver(sub, type, { conversation_id: conversationId });
      expect(body.data.contact).toEqual(CONTACT);
      expect(await journalOf(deliveryId)).toHaveLength(1);
    }
  });

  it("contact.merged carries the contact of contact_id", async () => {
    const sub = await subscribe(a, ["contact.*"], true);
    const { body, deliveryId } = await deliver(sub, "contact.merged", { contact_id: contactId });
    expect(body.data.contact).toEqual(CONTACT);
    expect(await journalOf(deliveryId)).toHaveLength(1);
  });

  it("stays thin, with no journal row, without include_pii, for a personal mailbox, or once the transfer is no longer allowed", async () => {
    const thinSub = await subscribe(a, ["lead.*"], false);
    let r = await deliver(thinSub, "lead.updated", { lead_id: leadId, version: 2 });
    expect(r.body.data).toEqual({ lead_id: leadId, version: 2 });
    expect(await journalOf(r.deliveryId)).toHaveLength(0);

    const convSub = await subscribe(a, ["conversation.*"], true);
    r = await deliver(convSub, "conversation.created", { conversation_id: mailboxConversationId });
    expect(r.body.data).toEqual({ conversation_id: mailboxConversationId });
    expect(await journalOf(r.deliveryId)).toHaveLength(0);

    // RU cell: the recipient country changed away from RU after the subscription was made.
    const leadSub = await subscribe(a, ["lead.*"], true);
    await db.db.update(integrations).set({ piiCountry: "DE" }).where(eq(integrations.id, a.integrationId));
    r = await deliver(leadSub, "lead.updated", { lead_id: leadId, version: 3 });
    expect(r.body.data).toEqual({ lead_id: leadId, version: 3 });
    expect(await journalOf(r.deliveryId)).toHaveLength(0);
  });

  it("sends nothing while the disclosure journal cannot be written; the delivery stays due and goes out once it can", async () => {
    const sub = await subscribe(a, ["lead.*"], true);
    rx.requests.length = 0;
    const ev = await recordEventWithDeliveries(
      db.db,
      { tenantId: a.tenantId, livemode: true, type: "lead.updated", data: { lead_id: leadId, version: 9 } },
      { onlySubscriptionId: sub },
    );
    const deliveryId = ev.deliveryIds[0]!;
    await db.db.execute(sql`alter table disclosures rename to disclosures_x`);
    try {
      await expect(attemptDelivery(db.db, deliveryId, new Date(), { client })).rejects.toThrow();
    } finally {
      await db.db.execute(sql`alter table disclosures_x rename to disclosures`);
    }
    expect(rx.requests).toHaveLength(0);
    const [d] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    expect(d).toMatchObject({ state: "pending", attempt: 0 });
    // The step took its own lease before failing; once that lease is over the delivery goes out with the contact.
    await db.db.update(webhookDeliveries).set({ lockedUntil: null }).where(eq(webhookDeliveries.id, deliveryId));
    const out = await attemptDelivery(db.db, deliveryId, new Date(), { client });
    expect(out.state).toBe("delivered");
    expect(JSON.parse(rx.requests[0]!.body).data.contact).toEqual(CONTACT);
    expect(await journalOf(deliveryId)).toHaveLength(1);
  });

  it("the integration lost leads:read: lead events go out thin", async () => {
    const b = await makeTenant(db.db, { scopes: ["conversations:read"] });
    const [c] = await db.db
      .insert(contacts)
      .values({ tenantId: b.tenantId, email: "b@example.ru" })
      .returning({ id: contacts.id });
    const [l] = await db.db
      .insert(leads)
      .values({ tenantId: b.tenantId, contactId: c!.id })
      .returning({ id: leads.id });
    const [sub] = await db.db
      .insert(webhookSubscriptions)
      .values({
        tenantId: b.tenantId,
        integrationId: b.integrationId,
        url: rx.url,
        events: ["lead.*"],
        includePii: true,
        status: "active",
        secretEnc: sealSecret(newSigningSecret()),
      })
      .returning({ id: webhookSubscriptions.id });
    rx.requests.length = 0;
    const ev = await recordEventWithDeliveries(
      db.db,
      { tenantId: b.tenantId, livemode: true, type: "lead.updated", data: { lead_id: l!.id, version: 1 } },
      { onlySubscriptionId: sub!.id },
    );
    await attemptDelivery(db.db, ev.deliveryIds[0]!, new Date(), { client });
    expect(JSON.parse(rx.requests[0]!.body).data).toEqual({ lead_id: l!.id, version: 1 });
    const [d] = await db.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, ev.deliveryIds[0]!)));
    expect(d!.state).toBe("delivered");
  });
});
