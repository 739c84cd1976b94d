import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disclosures, leads } from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { openTestDatabase } from "@/server/testing/test-db";
import type { StaffActor } from "../actor";
import { recordDeliveryDisclosure } from "../webhooks/personal-data";
import { journalCsv, journalPage } from "./journal";

// Issue 69: a disclosure-journal row carries the mode of the request (or delivery) that disclosed, and the
// console's journal and its CSV export hold only the rows of the console's mode.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let s: SandboxTenantFixture;
const lead: Record<"live" | "sandbox", string> = { live: "", sandbox: "" };
const request: Record<"live" | "sandbox", string> = { live: "", sandbox: "" };

const staff = (livemode?: boolean): StaffActor => ({
  via: "console",
  tenantId: s.tenantId,
  staffUserId: "staff-1",
  rights: ["view_personal_data"],
  ...(livemode === undefined ? {} : { livemode }),
});

beforeAll(async () => {
  db = await openTestDatabase();
  s = await makeEmptySandboxTenant(db.db);
  for (const [mode, key] of [
    ["live", s.key],
    ["sandbox", s.testKey],
  ] as const) {
    const [row] = await db.db
      .insert(leads)
      .values({ tenantId: s.tenantId, livemode: mode === "live", title: `${mode} lead` })
      .returning();
    lead[mode] = row!.id;
    const r = await call("GET", `/leads/${row!.id}`, { key });
    expect(r.status).toBe(200);
    request[mode] = r.headers.get("x-request-id")!;
  }
});
afterAll(async () => db.drop());

describe("disclosure-journal rows", () => {
  it("carry the mode of the request that disclosed", async () => {
    const rows = await db.db
      .select({ requestId: disclosures.requestId, livemode: disclosures.livemode, ids: disclosures.resourceIds })
      .from(disclosures)
      .where(inArray(disclosures.requestId, [request.live, request.sandbox]));
    expect(rows.sort((a, b) => Number(b.livemode) - Number(a.livemode))).toEqual([
      { requestId: request.live, livemode: true, ids: [lead.live] },
      { requestId: request.sandbox, livemode: false, ids: [lead.sandbox] },
    ]);
  });

  it("of a webhook delivery carry the delivery's mode", async () => {
    await recordDeliveryDisclosure(db.db, {
      tenantId: s.tenantId,
      livemode: false,
      integrationId: s.integrationId,
      deliveryId: "d-sandbox",
      eventType: "lead.created",
      contactId: crypto.randomUUID(),
    });
    const [row] = await db.db.select().from(disclosures).where(eq(disclosures.requestId, "delivery:d-sandbox"));
    expect(row).toMatchObject({ tenantId: s.tenantId, livemode: false, apiKeyId: null });
  });
});

describe("the console's disclosure journal", () => {
  it("lists and exports only live rows outside Test mode, and only the sandbox's in Test mode", async () => {
    const listed = async (actor: StaffActor) =>
      (await journalPage(db.db, actor, {}, 50, null)).entries.map((e) => e.requestId).sort();
    expect(await listed(staff())).toEqual([request.live]);
    expect(await listed(staff(true))).toEqual([request.live]);
    expect(await listed(staff(false))).toEqual(["delivery:d-sandbox", request.sandbox].sort());

    const live = await journalCsv(db.db, staff(), {});
    expect(live.rows).toBe(1);
    expect(live.csv).toContain(request.live);
    expect(live.csv).not.toContain(request.sandbox);
    const sandbox = await journalCsv(db.db, staff(false), { requestId: request.live });
    expect(sandbox.rows).toBe(0);
  });
});
