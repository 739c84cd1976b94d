import { and, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { disclosures } from "@/db/schema";
import { type DisclosureRow, setDisclosureBatchHook } from "@/server/services/disclosures/disclosures";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ID_ROUTE_FIXTURES } from "@/server/testing/route-fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// The disclosure journal by group commit (issue 22 item 3): concurrent personal-data answers share one
// insert; each answer still waits for its row to be committed; a failed batch answers 503 to every
// request in it, with no data.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let owner: TenantFixture;
let leadPath: string;
const N = 12;

beforeAll(async () => {
  db = await openTestDatabase();
  owner = await makeTenant(db.db);
  await setLimitOverride(db.db, { keyId: owner.keyId }, { readPerMin: 100_000 });
  leadPath = await ID_ROUTE_FIXTURES.getLead.make(db.db, owner);
});
afterEach(() => setDisclosureBatchHook(undefined));
afterAll(() => db.drop());

it("writes N concurrent answers' rows in fewer inserts than N, and no answer leaves before its row", async () => {
  const batches: number[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  setDisclosureBatchHook(async (rows: readonly DisclosureRow[]) => {
    batches.push(rows.length);
    await held; // every batch waits here until the test lets the inserts go
  });
  let answered = 0;
  const pending = Array.from({ length: N }, () =>
    call("GET", leadPath, { key: owner.key }).then((r) => {
      answered++;
      return r;
    }),
  );
  // Wait until every request has reached the journal (in a held batch or queued behind one).
  for (let i = 0; i < 200 && batches.reduce((a, b) => a + b, 0) < 1; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 300));
  expect(answered).toBe(0);
  release();
  const rs = await Promise.all(pending);
  expect(rs.map((r) => r.status)).toEqual(Array(N).fill(200));
  expect(batches.reduce((a, b) => a + b, 0)).toBe(N);
  expect(batches.length).toBeLessThan(N);
  const ids = rs.map((r) => r.headers.get("x-request-id")!);
  const rows = await db.db
    .select()
    .from(disclosures)
    .where(and(eq(disclosures.tenantId, owner.tenantId), inArray(disclosures.requestId, ids)));
  expect(rows).toHaveLength(N);
  for (const row of rows) expect(row.resourceIds).toEqual([rs[0].body.id]);
});

it("answers 503 with no data to every request of a batch whose insert fails", async () => {
  const batches: number[] = [];
  setDisclosureBatchHook((rows) => {
    batches.push(rows.length);
    throw new Error("disk full");
  });
  const rs = await Promise.all(Array.from({ length: N }, () => call("GET", "/leads", { key: owner.key })));
  expect(batches.length).toBeLessThan(N);
  expect(batches.reduce((a, b) => a + b, 0)).toBe(N);
  const leadId = leadPath.split("/").pop()!;
  for (const r of rs) {
    expect([r.status, r.body.code]).toEqual([503, "service_unavailable"]);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(r.text).not.toContain(leadId);
  }
  const rows = await db.db
    .select()
    .from(disclosures)
    .where(
      and(
        eq(disclosures.tenantId, owner.tenantId),
        inArray(
          disclosures.requestId,
          rs.map((r) => r.headers.get("x-request-id")!),
        ),
      ),
    );
  expect(rows).toEqual([]);
});
