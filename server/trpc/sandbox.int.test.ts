import { TRPCError } from "@trpc/server";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leads, products, tenants } from "@/db/schema";
import { setPreview } from "@/server/services/tenants/previews";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { liveChecksums } from "@/server/testing/live-checksum";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's "Reset test data" (issue 69 item 2), `sandbox.reset`: for a member with the
// `manage_integrations` right it empties the membership tenant's sandbox and seeds it again, changing no
// live row; a member without that right is refused, and a tenant the staff member is not in is not found.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
const as = (id: string) => createCaller({ db: db.db, staff: { id, email: `${id}@example.com`, name: "Staff" } });
const sandboxCards = async (tenantId: string) =>
  (
    await db.db
      .select({ n: count() })
      .from(products)
      .where(and(eq(products.tenantId, tenantId), eq(products.livemode, false)))
  )[0].n;

async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  // Only a tenant with the preview has a sandbox to reset (test-mode.int.test.ts: 404 without it).
  for (const x of [t, other]) await setPreview(db.db, x.tenantId, "test-mode", true);
}, 60_000);
afterAll(async () => db.drop());

describe("sandbox.reset", () => {
  it("resets the sandbox for a member with manage_integrations, and no live row changes", async () => {
    const manager = await makeStaff(db.db, t.tenantId, ["manage_integrations"]);
    await db.db.insert(products).values({ tenantId: t.tenantId, livemode: false, name: "Mine", code: "mine" });
    const live = await liveChecksums(db.db);
    expect(await as(manager).sandbox.reset({ tenantId: t.tenantId })).toEqual({
      tenant_id: t.tenantId,
      livemode: false,
      reset: true,
    });
    expect(await liveChecksums(db.db)).toEqual(live);
    expect(await sandboxCards(t.tenantId)).toBe(3);
    const sandboxLeads = await db.db
      .select({ n: count() })
      .from(leads)
      .where(and(eq(leads.tenantId, t.tenantId), eq(leads.livemode, false)));
    expect(sandboxLeads[0].n).toBeGreaterThan(0);
    const [tenant] = await db.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expect(tenant.sandboxSeededAt).toBeInstanceOf(Date);
  });

  it("refuses a member without manage_integrations, and changes nothing", async () => {
    const member = await makeStaff(db.db, other.tenantId, ["manage_webhooks", "topup_wallet", "view_personal_data"]);
    const err = await rejects(as(member).sandbox.reset({ tenantId: other.tenantId }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toContain("manage_integrations");
    expect(await sandboxCards(other.tenantId)).toBe(0);
  });

  it("answers not found for a tenant the staff member is not in", async () => {
    const manager = await makeStaff(db.db, t.tenantId, ["manage_integrations"]);
    const err = await rejects(as(manager).sandbox.reset({ tenantId: other.tenantId }));
    expect(err.code).toBe("NOT_FOUND");
    expect(await sandboxCards(other.tenantId)).toBe(0);
  });
});
