import { and, eq, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts } from "@/db/schema";
import type { LeadContactInput } from "@/server/schemas/lead-writes";
import { ownedBy, ownerOf, type Owner } from "../tenant-scope";

type ContactRow = typeof contacts.$inferSelect;

/** Contact columns by their API names (LeadContact), for writes and for comparing. */
const COLUMNS = {
  first_name: "firstName",
  last_name: "lastName",
  email: "email",
  phone: "phone",
  tags: "tags",
  geo_country: "geoCountry",
  geo_city: "geoCity",
} as const satisfies Record<keyof LeadContactInput, keyof ContactRow>;

/** The contact fields sent (undefined ones left out), as contacts columns; emails lower-cased, texts trimmed. */
function columnsOf(input: LeadContactInput): Partial<ContactRow> {
  const out: Record<string, unknown> = {};
  for (const [api, col] of Object.entries(COLUMNS) as [keyof LeadContactInput, keyof ContactRow][]) {
    const v = input[api];
    if (v === undefined) continue;
    if (typeof v === "string") {
      const t = v.trim();
      out[col] = t === "" ? null : api === "email" ? t.toLowerCase() : t;
    } else out[col] = v;
  }
  return out as Partial<ContactRow>;
}

/** The digits of a phone number: how two spellings of one number compare. */
const digits = (phone: string) => phone.replace(/\D/g, "");

/**
 * The contact of a lead write (issue 70 item 1): a contact of the owner (tenant and mode) with the same email
 * (case-insensitive) or the same phone (digits compared) is reused and its empty fields filled from `input`,
 * never overwritten (it may be another lead's person too); else a new contact is made.
 * @returns the contact's id
 */
export async function findOrMakeContact(db: Db, owner: Owner, input: LeadContactInput): Promise<string> {
  const cols = columnsOf(input);
  const match: SQL[] = [];
  if (cols.email) match.push(sql`lower(${contacts.email}) = ${cols.email}`);
  if (cols.phone && digits(cols.phone).length >= 3)
    match.push(sql`regexp_replace(${contacts.phone}, '\\D', '', 'g') = ${digits(cols.phone)}`);
  if (match.length) {
    const [found] = await db
      .select()
      .from(contacts)
      .where(and(ownedBy(contacts, owner), or(...match)))
      .orderBy(contacts.createdAt)
      .limit(1)
      .for("update");
    if (found) {
      const fill: Record<string, unknown> = {};
      for (const [col, v] of Object.entries(cols)) {
        const cur = found[col as keyof ContactRow];
        if (v !== null && (cur === null || (Array.isArray(cur) && cur.length === 0))) fill[col] = v;
      }
      if (Object.keys(fill).length) await db.update(contacts).set(fill).where(eq(contacts.id, found.id));
      return found.id;
    }
  }
  const [made] = await db
    .insert(contacts)
    .values({ ...ownerOf(owner), ...cols })
    .returning({ id: contacts.id });
  return made!.id;
}

/**
 * Applies a PATCH's contact fields to the lead's own contact (overwriting: the lead's editor means this
 * person), or, for a lead without one, finds or makes it as {@link findOrMakeContact} does.
 * @returns the contact id and whether the lead's representation changes (a field differs or a contact is linked).
 */
export async function changeLeadContact(
  db: Db,
  owner: Owner,
  contactId: string | null,
  input: LeadContactInput,
): Promise<{ contactId: string; changed: boolean }> {
  if (!contactId) return { contactId: await findOrMakeContact(db, owner, input), changed: true };
  const [cur] = await db
    .select()
    .from(contacts)
    .where(and(ownedBy(contacts, owner), eq(contacts.id, contactId)));
  if (!cur) return { contactId: await findOrMakeContact(db, owner, input), changed: true };
  const cols = columnsOf(input);
  const diff: Record<string, unknown> = {};
  for (const [col, v] of Object.entries(cols))
    if (JSON.stringify(cur[col as keyof ContactRow]) !== JSON.stringify(v)) diff[col] = v;
  if (!Object.keys(diff).length) return { contactId, changed: false };
  await db.update(contacts).set(diff).where(eq(contacts.id, contactId));
  return { contactId, changed: true };
}
