import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts, conversations, integrations, leads, tenants } from "@/db/schema";
import { ruPersonalDataRuleApplies } from "@/server/services/access/pii-transfer";
import { writeDisclosureRow } from "@/server/services/disclosures/disclosures";
import { toLeadContact } from "@/server/services/leads/lead-view";
import { integrationEffectiveScopes } from "@/server/services/integrations/integrations";
import { familyOf, isPiiEnrichedType, PII_FAMILIES } from "@/server/webhook-transport/event-catalog";
import { ownedByOwner } from "./owner";

/** What {@link personalDataForDelivery} needs of a subscription row. */
export interface PiiSubscription {
  tenantId: string;
  /** The subscription's mode: a test subscription discloses only sandbox contacts. */
  livemode: boolean;
  integrationId: string;
  includePii: boolean;
}

/** What it needs of an event row. */
export interface PiiEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The enriched `data` of one attempt and the contact it discloses (null: nothing personal added). */
export interface PersonalData {
  data: Record<string, unknown>;
  contactId: string;
}

/** Conversations that are never disclosed (spec general fact 6). */
const HIDDEN_KINDS = new Set(["personal_mailbox", "student_cabinet"]);

const idOf = (v: unknown): string | null => (typeof v === "string" && /^[0-9a-f-]{36}$/i.test(v) ? v : null);

/**
 * The personal data `include_pii: true` adds to one delivery (spec "Events", after the table):
 * `conversation.created`, `conversation.handoff_requested`, `conversation.summary_ready` (the
 * conversation's contact), every `lead.*` (the lead's contact) and `contact.merged` (the contact of
 * `contact_id`) get `data.contact` as a LeadContact (`id, first_name, last_name, email, phone, tags,
 * geo_country, geo_city`). Personal data is read at send time, never stored in the outbox, so the event
 * table holds ids only and a retry carries the contact as it is then.
 *
 * The rules are checked again at send time, because they may have changed since the subscription was
 * made: the integration must still be active and hold a matching read scope, and in the RU cell its
 * recipient country must be RU (spec "Authentication" 7). Otherwise, and for personal-mailbox and
 * student-cabinet conversations, the delivery goes out thin (returns null). Conversations, leads and
 * contacts are read in the subscription's tenant and mode only (a sample event of the sandbox naming a
 * live id finds nothing and goes out thin).
 * @returns null when the delivery carries no personal data
 */
export async function personalDataForDelivery(
  db: Db,
  sub: PiiSubscription,
  event: PiiEvent,
): Promise<PersonalData | null> {
  if (!sub.includePii || !isPiiEnrichedType(event.type)) return null;
  const [integration] = await db
    .select({ status: integrations.status, piiCountry: integrations.piiCountry, cell: tenants.cell })
    .from(integrations)
    .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
    .where(and(eq(integrations.id, sub.integrationId), eq(integrations.tenantId, sub.tenantId)));
  if (!integration || integration.status !== "active") return null;
  if (ruPersonalDataRuleApplies(integration) && integration.piiCountry !== "RU") return null;
  const needed = PII_FAMILIES[familyOf(event.type)] ?? [];
  const scopes = await integrationEffectiveScopes(db, sub.integrationId);
  if (!needed.some((s) => scopes.includes(s))) return null;

  const contactId = await contactIdOf(db, sub, event);
  if (!contactId) return null;
  const [contact] = await db
    .select()
    .from(contacts)
    .where(and(ownedByOwner(contacts, sub), eq(contacts.id, contactId)));
  if (!contact) return null;
  return { data: { ...event.data, contact: toLeadContact(contact) }, contactId: contact.id };
}

async function contactIdOf(db: Db, sub: PiiSubscription, event: PiiEvent): Promise<string | null> {
  const family = familyOf(event.type);
  if (family === "conversation") {
    const id = idOf(event.data.conversation_id);
    if (!id) return null;
    const [c] = await db
      .select({ contactId: conversations.contactId, kind: conversations.kind })
      .from(conversations)
      .where(and(ownedByOwner(conversations, sub), eq(conversations.id, id)));
    return c && !HIDDEN_KINDS.has(c.kind) ? c.contactId : null;
  }
  if (family === "lead") {
    const id = idOf(event.data.lead_id);
    if (!id) return null;
    const [l] = await db
      .select({ contactId: leads.contactId })
      .from(leads)
      .where(and(ownedByOwner(leads, sub), eq(leads.id, id)));
    return l?.contactId ?? null;
  }
  return idOf(event.data.contact_id);
}

/**
 * Writes the disclosure-journal row of one delivery attempt that carries personal data (spec "Events":
 * "each such delivery enters the personal-data disclosure journal"): route `webhook <event type>`,
 * resource `contact`, request id `delivery:<delivery id>`, no API key, in the delivery's mode. Written
 * before the POST; when it fails the attempt is not made (the error propagates and the driver retries the
 * step later).
 */
export async function recordDeliveryDisclosure(
  db: Db,
  input: {
    tenantId: string;
    /** The delivery's mode: a sandbox delivery's disclosure is a sandbox journal row. */
    livemode: boolean;
    integrationId: string;
    deliveryId: string;
    eventType: string;
    contactId: string;
  },
): Promise<void> {
  await writeDisclosureRow(db, {
    tenantId: input.tenantId,
    livemode: input.livemode,
    integrationId: input.integrationId,
    apiKeyId: null,
    route: `webhook ${input.eventType}`,
    resourceType: "contact",
    resourceIds: [input.contactId],
    requestId: `delivery:${input.deliveryId}`,
  });
}
