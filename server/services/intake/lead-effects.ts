import { and, asc, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts, conversations, leads } from "@/db/schema";
import type { IntakeEvent } from "@/server/schemas/intake";
import type { UpdateLead } from "@/server/schemas/lead-writes";
import type { Actor } from "../actor";
import { createLead, crmModeOf, updateLead } from "../leads/lead-writes";
import { livemodeOf, ownedBy } from "../tenant-scope";
import type { Classification } from "./classify";

// What an accepted intake event changes in the CRM (issue 74 item 2), in the batch's transaction, through the
// leads' own writers (lead-writes.ts): a purchase or conversion wins its lead, a form submission or sign-up of
// a new contact makes one. Only these types, and only those that name a lead or a person, cost a query.

/** What an event did to the CRM (`intake_events.lead_effect`). */
export type LeadEffect = "lead_created" | "lead_won" | "lead_value_set";

/** The lead an event is linked to and what it did to it. */
export interface LeadLink {
  leadId: string | null;
  effect: LeadEffect | null;
}

/** An accepted event that may touch a lead. */
export interface EffectInput {
  index: number;
  event: IntakeEvent;
  classification: Classification;
}

const WINS = new Set(["purchase", "conversion"]);
const MAKES = new Set(["form_submit", "signup"]);

const digits = (phone: string) => phone.replace(/\D/g, "");
const emailOf = (e: IntakeEvent) => e.contact?.email?.trim().toLowerCase() || null;
const phoneOf = (e: IntakeEvent) => {
  const d = digits(e.contact?.phone ?? "");
  return d.length >= 3 ? d : null;
};

/** Whether an event of this batch can change or link a lead (and so is worth its queries). */
export function mayTouchLead(e: IntakeEvent): boolean {
  if (!WINS.has(e.type) && !MAKES.has(e.type)) return false;
  return Boolean(e.lead_id || e.conversation_id || emailOf(e) || phoneOf(e) || e.contact?.external_id);
}

/**
 * The lead an event is about: the one it names (`lead_id`, checked to be the actor's already), else the
 * newest not archived lead of its conversation, else the newest not archived lead of its contact (a contact
 * of the tenant with the same email, case-insensitive, or phone, digits compared, as lead-contact.ts matches;
 * or a conversation whose `external_customer_id` is the contact's `external_id`). Open leads come before
 * won and lost ones.
 */
async function findLead(db: Db, actor: Actor, e: IntakeEvent): Promise<string | null> {
  if (e.lead_id) return e.lead_id;
  const by: SQL[] = [];
  if (e.conversation_id) by.push(eq(leads.conversationId, e.conversation_id));
  const email = emailOf(e);
  const phone = phoneOf(e);
  const people: SQL[] = [];
  if (email) people.push(sql`lower(${contacts.email}) = ${email}`);
  if (phone) people.push(sql`regexp_replace(${contacts.phone}, '\\D', '', 'g') = ${phone}`);
  if (people.length)
    by.push(
      inArray(
        leads.contactId,
        db
          .select({ id: contacts.id })
          .from(contacts)
          .where(and(ownedBy(contacts, actor), or(...people))),
      ),
    );
  const external = e.contact?.external_id;
  if (external)
    by.push(
      inArray(
        leads.conversationId,
        db
          .select({ id: conversations.id })
          .from(conversations)
          .where(and(ownedBy(conversations, actor), eq(conversations.externalCustomerId, external))),
      ),
    );
  if (!by.length) return null;
  const [row] = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(ownedBy(leads, actor), eq(leads.archived, false), or(...by)))
    .orderBy(asc(sql`${leads.status} in ('won', 'lost')`), desc(leads.createdAt))
    .limit(1);
  return row?.id ?? null;
}

/**
 * A purchase or conversion on a lead (tenant with the preview `leads-writes`): moves it to `won` unless it is
 * won already (not while the tenant's CRM is external: that CRM owns statuses) and sets its `value` from the
 * event's when it has none, as `PATCH /leads/{id}` would (new version, `lead.updated`, `lead.status_changed`).
 * The lead is locked first, so its version is the one the change is made under.
 */
async function winLead(db: Db, actor: Actor, leadId: string, e: IntakeEvent, external: boolean) {
  const [cur] = await db
    .select({ status: leads.status, valueMinor: leads.valueMinor, etag: leads.etag })
    .from(leads)
    .where(and(ownedBy(leads, actor), eq(leads.id, leadId)))
    .for("update");
  if (!cur) return null;
  const patch: UpdateLead = {};
  if (cur.status !== "won" && !external) patch.status = "won";
  if (cur.valueMinor === null && e.value) patch.value = e.value;
  if (!patch.status && !patch.value) return null;
  await updateLead(db, actor, leadId, cur.etag, patch);
  return patch.status ? "lead_won" : "lead_value_set";
}

/** A form submission or sign-up of a person not yet a lead: a new lead with the event's attribution. */
async function makeLead(db: Db, actor: Actor, e: IntakeEvent, c: Classification): Promise<string> {
  const page = e.page?.url ? e.page.url.split(/[?#]/)[0] : null;
  const what = e.type === "signup" ? "Sign-up" : "Form submission";
  const lead = await createLead(db, actor, {
    title: c.pagePath ? `${what} on ${c.pagePath}` : what,
    source: c.source,
    contact: { email: e.contact?.email ?? undefined, phone: e.contact?.phone ?? undefined },
    attribution: {
      utm_source: e.utm?.source ?? null,
      utm_medium: e.utm?.medium ?? null,
      utm_campaign: e.utm?.campaign ?? null,
      first_page: page,
      referrer: e.page?.referrer || null,
    },
    conversation_id: e.conversation_id ?? null,
  });
  return lead.id;
}

/**
 * Takes the locks that keep two batches from making two leads of one new person: one transaction-scoped
 * advisory lock per email and phone of the events that may make a lead, in one sorted order (so two batches
 * never wait on each other in a circle).
 */
async function lockPeople(db: Db, actor: Actor, events: EffectInput[]): Promise<void> {
  const keys = new Set<string>();
  const owner = `${actor.tenantId}:${livemodeOf(actor)}`;
  for (const { event: e } of events) {
    if (!MAKES.has(e.type) || e.lead_id) continue;
    const email = emailOf(e);
    const phone = phoneOf(e);
    if (email) keys.add(`intake-person:${owner}:email:${email}`);
    if (phone) keys.add(`intake-person:${owner}:phone:${phone}`);
  }
  if (!keys.size) return;
  const locks = [...keys].sort().map((k) => sql`pg_advisory_xact_lock(hashtext(${k}))`);
  await db.execute(sql`select ${sql.join(locks, sql`, `)}`);
}

/**
 * Applies the CRM effects of a batch's accepted events, in request order, in the batch's transaction:
 * - `purchase` / `conversion` linked to a lead (by id, conversation or contact): with `leadsWrites` (the
 *   tenant's preview `leads-writes`) the lead is won and valued ({@link winLead}: `lead_won` or
 *   `lead_value_set`); without it the lead is only linked (untouched: only analytics change);
 * - `form_submit` / `signup`: a contact already a lead links to it; a new one with an email or phone becomes
 *   a lead through createLead (`lead.created`, `lead_created`). A contact with only an `external_id` that
 *   matches no lead makes none: nothing could find that lead again.
 * @returns the link of each event by its index (events that touch nothing are absent)
 */
export async function applyLeadEffects(
  db: Db,
  actor: Actor,
  events: EffectInput[],
  opts: { leadsWrites: boolean },
): Promise<Map<number, LeadLink>> {
  const links = new Map<number, LeadLink>();
  const touching = events.filter((x) => mayTouchLead(x.event));
  if (!touching.length) return links;
  await lockPeople(db, actor, touching);
  let external: boolean | undefined;
  for (const { index, event: e, classification } of touching) {
    const leadId = await findLead(db, actor, e);
    if (WINS.has(e.type)) {
      if (!leadId) continue;
      if (!opts.leadsWrites) {
        links.set(index, { leadId, effect: null });
        continue;
      }
      external ??= (await crmModeOf(db, actor.tenantId)) === "external";
      links.set(index, { leadId, effect: await winLead(db, actor, leadId, e, external) });
    } else if (leadId) links.set(index, { leadId, effect: null });
    else if (emailOf(e) || phoneOf(e))
      links.set(index, { leadId: await makeLead(db, actor, e, classification), effect: "lead_created" });
  }
  return links;
}
