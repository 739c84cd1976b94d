import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integrations, leads } from "@/db/schema";
import { eq } from "drizzle-orm";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The disclosure journal in the console (issue 19 item 7): staff with view_personal_data see who received
// which personal records, filter it and export it as CSV; nobody else sees it, and no tenant sees another's.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
let reader: { id: string; email: string; name: string };
let noRight: { id: string; email: string; name: string };
let firstDay: string;
let lastDay: string;
const leadIds: string[] = [];
const requestIds: string[] = [];

const as = (s: { id: string; email: string; name: string }) => createCaller({ db: db.db, staff: s });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  reader = { id: await makeStaff(db.db, t.tenantId, ["view_personal_data"]), email: "r@x.example", name: "R" };
  noRight = {
    id: await makeStaff(db.db, t.tenantId, ["manage_integrations", "manage_webhooks", "topup_wallet"]),
    email: "n@x.example",
    name: "N",
  };
  for (const title of ["Anna", "Boris"]) {
    const [l] = await db.db.insert(leads).values({ tenantId: t.tenantId, title }).returning({ id: leads.id });
    leadIds.push(l.id);
  }
  await db.db.insert(leads).values({ tenantId: other.tenantId, title: "Other" });
  // Real answers carrying personal data write the journal: a list, then one lead by id, then another tenant's list.
  firstDay = new Date().toISOString().slice(0, 10);
  for (const [key, path] of [
    [t.key, "/leads"],
    [t.key, `/leads/${leadIds[0]}`],
    [other.key, "/leads"],
  ] as const) {
    const r = await call("GET", path, { key });
    expect(r.status, path).toBe(200);
    if (key === t.key) requestIds.push(r.headers.get("x-request-id")!);
  }
  // The UTC days the rows were written between: a run crossing midnight must filter by them, not by the test's day.
  lastDay = new Date().toISOString().slice(0, 10);
  // An integration name a spreadsheet would run as a formula.
  await db.db.update(integrations).set({ name: "=HYPERLINK(1)" }).where(eq(integrations.id, t.integrationId));
});
afterAll(async () => db.drop());

describe("journal.list", () => {
  it("shows the tenant's rows newest first, with the integration, key and request, to staff with view_personal_data", async () => {
    const page = await as(reader).journal.list({ tenantId: t.tenantId });
    expect(page.entries.map((e) => e.requestId)).toEqual([...requestIds].reverse());
    const [one, list] = page.entries;
    expect(one).toMatchObject({ route: "GET /leads/{id}", resourceType: "lead", resourceIds: [leadIds[0]] });
    expect(list.resourceIds.sort()).toEqual([...leadIds].sort());
    expect(list).toMatchObject({ integrationId: t.integrationId, keyId: t.keyId, integrationName: "=HYPERLINK(1)" });
    expect(page.next).toBeNull();
  });

  it("filters by request id, resource type, integration and day, and pages by keyset", async () => {
    const byRequest = await as(reader).journal.list({ tenantId: t.tenantId, filters: { requestId: requestIds[0] } });
    expect(byRequest.entries.map((e) => e.requestId)).toEqual([requestIds[0]]);
    const none = await as(reader).journal.list({ tenantId: t.tenantId, filters: { resourceType: "conversation" } });
    expect(none.entries).toEqual([]);
    const otherIntegration = await as(reader).journal.list({
      tenantId: t.tenantId,
      filters: { integrationId: other.integrationId },
    });
    expect(otherIntegration.entries).toEqual([]);
    expect(
      (await as(reader).journal.list({ tenantId: t.tenantId, filters: { from: firstDay, to: lastDay } })).entries,
    ).toHaveLength(2);
    expect((await as(reader).journal.list({ tenantId: t.tenantId, filters: { to: "2020-01-01" } })).entries).toEqual(
      [],
    );
    const first = await as(reader).journal.list({ tenantId: t.tenantId, limit: 1 });
    expect(first.entries.map((e) => e.requestId)).toEqual([requestIds[1]]);
    const second = await as(reader).journal.list({ tenantId: t.tenantId, limit: 1, cursor: first.next });
    expect(second.entries.map((e) => e.requestId)).toEqual([requestIds[0]]);
    expect(second.next).toBeNull();
  });

  it("is refused to a member without view_personal_data, and another tenant's member sees nothing of it", async () => {
    const err = await as(noRight)
      .journal.list({ tenantId: t.tenantId })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(TRPCError);
    expect((err as TRPCError).code).toBe("FORBIDDEN");
    expect((err as TRPCError).message).toContain("view_personal_data");
    const outsider = {
      id: await makeStaff(db.db, other.tenantId, ["view_personal_data"]),
      email: "o@x.example",
      name: "O",
    };
    const foreign = await as(outsider)
      .journal.list({ tenantId: t.tenantId })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((foreign as TRPCError).code).toBe("NOT_FOUND");
    const own = await as(outsider).journal.list({ tenantId: other.tenantId });
    expect(own.entries).toHaveLength(1);
    expect(own.entries[0].resourceIds).not.toContain(leadIds[0]);
  });

  it("refuses a filter that is not a date with a 400 naming the field", async () => {
    const err = await as(reader)
      .journal.list({ tenantId: t.tenantId, filters: { from: "yesterday" } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((err as TRPCError).code).toBe("BAD_REQUEST");
  });
});

describe("journal.exportCsv", () => {
  it("writes a header and one row per entry, formula-like names defused, under the same filters", async () => {
    const out = await as(reader).journal.exportCsv({ tenantId: t.tenantId });
    expect(out).toMatchObject({ rows: 2, truncated: false });
    const lines = out.csv.trimEnd().split("\n");
    expect(lines[0]).toBe("time,integration_id,integration,key_id,route,resource_type,resource_ids,request_id");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`'=HYPERLINK(1)`);
    expect(lines[1]).toContain(`GET /leads/{id},lead,${leadIds[0]},${requestIds[1]}`);
    expect(lines[2]).toContain(requestIds[0]);
    const one = await as(reader).journal.exportCsv({ tenantId: t.tenantId, filters: { requestId: requestIds[0] } });
    expect(one.rows).toBe(1);
    const denied = await as(noRight)
      .journal.exportCsv({ tenantId: t.tenantId })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((denied as TRPCError).code).toBe("FORBIDDEN");
  });
});
