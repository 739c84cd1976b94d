import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts, leads } from "@/db/schema";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";

/** A non-archived lead of the owner with a contact (the personal data the isolation test must not leak). */
async function lead(db: Db, o: TenantFixture): Promise<string> {
  const [c] = await db
    .insert(contacts)
    .values({ tenantId: o.tenantId, firstName: "Matrix", email: "matrix@example.com" })
    .returning({ id: contacts.id });
  const [l] = await db
    .insert(leads)
    .values({ tenantId: o.tenantId, title: "Matrix lead", source: "matrix", contactId: c.id })
    .returning({ id: leads.id });
  return l.id;
}

/** Isolation fixtures of the lead routes (see ID_ROUTE_FIXTURES). */
export const LEAD_FIXTURES: Record<string, IdRouteFixture> = {
  getLead: {
    make: async (db, o) => `/leads/${await lead(db, o)}`,
    missing: async () => `/leads/${crypto.randomUUID()}`,
  },
  updateLead: {
    make: async (db, o) => `/leads/${await lead(db, o)}`,
    missing: async () => `/leads/${crypto.randomUUID()}`,
    body: { title: "Changed by the matrix" },
    headers: async (db, path) => ({ "if-match": await etagOf(db, path.split("/")[2]!) }),
  },
  scoreLead: {
    make: async (db, o) => `/leads/${await lead(db, o)}/score`,
    missing: async () => `/leads/${crypto.randomUUID()}/score`,
  },
};

/** The lead's current etag (whatever its mode), or a well-formed tag of nothing for a missing lead. */
async function etagOf(db: Db, id: string): Promise<string> {
  const [row] = await db.select({ etag: leads.etag }).from(leads).where(eq(leads.id, id));
  return row?.etag ?? '"1-missing"';
}
