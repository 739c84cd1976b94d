import { randomUUID } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, leads, leadScores, operations, walletLedger } from "@/db/schema";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Leads (issue 70 item 6): staff with view_personal_data list and edit leads under the
// lead's etag (a stale one is PRECONDITION_FAILED, nothing written), see the timeline; the CRM mode and
// the status map need manage_integrations. The Score button: a paid scoring the tenant's wallet pays,
// started by the staff member (no integration), needing the right of leads:score (view_personal_data).

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

  it("scores with the right: the tenant's wallet holds and charges 2.00 RUB, a staff-started operation", async () => {
    const tenantId = t.tenantId;
    const before = (await as(reader).leads.get({ tenantId, id: leadId })).lead.version;
    const key = randomUUID();
    const r = await as(reader).leads.score({ tenantId, id: leadId, key });
    expect(r.usage.cost).toEqual({ amount: "2.00", currency: "RUB" });
    // A repeat of the click (same key) answers the same scoring and charges nothing again.
    expect(await as(reader).leads.score({ tenantId, id: leadId, key })).toEqual(r);
    const ops = await db.db.select().from(operations).where(eq(operations.tenantId, tenantId));
    expect(ops.map((o) => [o.type, o.status, o.staffUserId, o.integrationId, o.chargedMinor])).toEqual([
      ["lead.score", "succeeded", reader.id, null, 200n],
    ]);
    const ledger = await db.db
      .select()
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, tenantId), eq(walletLedger.operationId, ops[0]!.id)));
    expect(ledger.map((l) => [l.kind, l.amountMinor, l.holdMinor]).sort()).toEqual([
      ["charge", -200n, -200n],
      ["hold", 0n, 200n],
    ]);
    const detail = await as(reader).leads.get({ tenantId, id: leadId });
    expect(detail.lead.score).toMatchObject({ score: r.score.score, grade: r.score.grade, reason: r.score.reason });
    expect(detail.lead.version).toBe(before + 1);
    expect(detail.scores.map((x) => x.id)).toHaveLength(1);
    const [ev] = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, "lead.scored")));
    expect(ev?.data).toMatchObject({ lead_id: leadId, version: before + 1, level: r.score.grade });
  });

  it("refuses scoring without the right, and without funds with a readable 402 and nothing written", async () => {
    const noPii = { id: await makeStaff(db.db, t.tenantId, ["manage_integrations"]), email: "n@x.example", name: "N" };
    const forbidden = await as(noPii)
      .leads.score({ tenantId: t.tenantId, id: leadId, key: randomUUID() })
      .catch((e: unknown) => e);
    expect((forbidden as TRPCError).code).toBe("FORBIDDEN");
    const poor = await makeTenant(db.db, { balanceMinor: 0n });
    const staff = {
      id: await makeStaff(db.db, poor.tenantId, ["view_personal_data"]),
      email: "p@x.example",
      name: "P",
    };
    const [l] = await db.db.insert(leads).values({ tenantId: poor.tenantId, title: "Chair" }).returning();
    const refused = await as(staff)
      .leads.score({ tenantId: poor.tenantId, id: l!.id, key: randomUUID() })
      .catch((e: unknown) => e);
    expect((refused as TRPCError).code).toBe("PAYMENT_REQUIRED");
    expect((refused as TRPCError).message).toMatch(/available balance .* is below/);
    const tenantOps = await db.db.select().from(operations).where(eq(operations.tenantId, poor.tenantId));
    const scores = await db.db.select().from(leadScores).where(eq(leadScores.tenantId, poor.tenantId));
    const holds = await db.db.select().from(walletLedger).where(eq(walletLedger.tenantId, poor.tenantId));
    const [after] = await db.db.select().from(leads).where(eq(leads.id, l!.id));
    expect([tenantOps.length, scores.length, holds.length, after!.version, after!.score]).toEqual([0, 0, 0, 1, null]);
  });
});
