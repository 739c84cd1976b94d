import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { operations } from "@/db/schema";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { claimOperation, dueOperationIds } from "./operation-runs";

// The engine runs its own operation types only: a row of a type it does not run (`lead.score` runs inside
// its request, issue 70) is never claimed, so it is never timed out or changed.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

it("claims a due conversation.ai_reply and leaves a running operation of another type alone", async () => {
  const past = new Date(Date.now() - 60_000);
  const [foreign, own] = await db.db
    .insert(operations)
    .values([
      {
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        type: "lead.score",
        status: "running",
        deadlineAt: past,
      },
      {
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        type: "conversation.ai_reply",
        status: "queued",
        deadlineAt: past,
      },
    ])
    .returning({ id: operations.id });
  const due = await dueOperationIds(db.db, 10);
  expect(due).toContain(own.id);
  expect(due).not.toContain(foreign.id);
  expect(await claimOperation(db.db, foreign.id)).toBeNull();
  expect((await claimOperation(db.db, own.id))?.op.id).toBe(own.id);
  const [row] = await db.db.select().from(operations).where(eq(operations.id, foreign.id));
  expect(row).toMatchObject({ status: "running", attempts: 0, lockedUntil: null });
});

it("lists live operations ahead of test-mode ones, and each mode alone when asked (issue 76 item 3)", async () => {
  const later = new Date(Date.now() + 60_000);
  const row = (livemode: boolean) => ({
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    type: "conversation.ai_reply",
    status: "queued",
    livemode,
    deadlineAt: later,
  });
  // The test-mode ones are older: created first.
  const tests = await db.db
    .insert(operations)
    .values([row(false), row(false)])
    .returning({ id: operations.id });
  const [live] = await db.db.insert(operations).values(row(true)).returning({ id: operations.id });
  const testIds = tests.map((r) => r.id);
  const all = await dueOperationIds(db.db, 100);
  expect(all.indexOf(live!.id)).toBeLessThan(Math.min(...testIds.map((id) => all.indexOf(id))));
  expect(await dueOperationIds(db.db, 100, true)).toContain(live!.id);
  expect(await dueOperationIds(db.db, 100, true)).not.toContain(testIds[0]);
  expect(await dueOperationIds(db.db, 100, false)).toEqual(expect.arrayContaining(testIds));
  expect(await dueOperationIds(db.db, 100, false)).not.toContain(live!.id);
});
