import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leads } from "@/db/schema";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Leads (issue 70 item 6): staff with view_personal_data list and edit leads under the
// lead's etag (a stale one is PRECONDITION_FAILED, nothing written), see the timeline; the CRM mode and
// the status map need manage_integrations.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let reader: { id: string; email: string; name: string };
let admin: { id: string; email: string; name: string };
let leadId: string;
const as = (s: { id: string; email: string; name: string }) => createCaller({ db: db.db, staff: s });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  reader = { id: await makeStaff(db.db, t.tenantId, ["view_personal_data"]), email: "r@x.example", name: "R" };
  admin = {
    id: await makeStaff(db.db, t.tenantId, ["view_personal_data", "manage_integrations"]),
    email: "a@x.example",
    name: "A",
  };
  const [l] = await db.db.insert(leads).values({ tenantId: t.tenantId, title: "Desk" }).returning({ id: leads.id });
  leadId = l!.id;
});
afterAll(async () => db.drop());

describe("leads in the console", () => {
  it("lists, edits under the etag, refuses a stale edit and records the timeline", async () => {
    const tenantId = t.tenantId;
    const page = await as(reader).leads.list({ tenantId });
    expect(page.leads.map((l) => l.id)).toContain(leadId);
    const { lead } = await as(reader).leads.get({ tenantId, id: leadId });
    const changed = await as(reader).leads.update({
      tenantId,
      id: leadId,
      etag: lead.etag,
      change: { title: "Desks" },
    });
    expect(changed.version).toBe(2);
    const stale = await as(reader)
      .leads.update({ tenantId, id: leadId, etag: lead.etag, change: { title: "Late" } })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(TRPCError);
    expect((stale as TRPCError).code).toBe("PRECONDITION_FAILED");
    const detail = await as(reader).leads.get({ tenantId, id: leadId });
    expect([detail.lead.title, detail.timeline[0]?.version, detail.timeline[0]?.actor]).toEqual([
      "Desks",
      2,
      `staff:${reader.id}`,
    ]);
  });

  it("switches the CRM mode and edits the status map with manage_integrations only", async () => {
    const tenantId = t.tenantId;
    await expect(as(reader).leads.setCrmMode({ tenantId, mode: "external" })).rejects.toThrow();
    expect((await as(admin).leads.setCrmMode({ tenantId, mode: "external" })).crm_mode).toBe("external");
    await as(admin).leads.putStatusMap({ tenantId, map: { Paid: "won" } });
    expect(await as(reader).leads.crm({ tenantId })).toMatchObject({
      mode: "external",
      statusMap: { map: { Paid: "won" } },
    });
  });
});
