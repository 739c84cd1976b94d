import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForChanges, type ChangeListener } from "@/db/change-listener";
import { operations } from "@/db/schema";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { claimOperation, finishOperation } from "./operation-runs";
import { listenForSettledOperations, OPERATION_SETTLED_CHANNEL, untilSettled, waitingCount } from "./operation-settled";

// A request waiting on an operation (`wait=N`) answers as soon as any process finishes it: finishOperation
// sends the id on `operation_settled` in its transaction, and each app process's listener wakes its own
// waiters. PGlite by default, PostgreSQL with DATABASE_URL (the cross-process part needs a server).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const pg = Boolean(process.env.DATABASE_URL);

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db?.drop());

/** A conversation.ai_reply operation claimed by this test: running, first attempt. */
async function runningOperation(): Promise<{ id: string; attempt: number }> {
  const [row] = await db.db
    .insert(operations)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      type: "conversation.ai_reply",
      status: "queued",
      deadlineAt: new Date(Date.now() - 1000),
    })
    .returning({ id: operations.id });
  const claimed = await claimOperation(db.db, row!.id);
  return { id: row!.id, attempt: claimed!.op.attempts };
}

const failed = async () => ({
  status: "failed" as const,
  costMinor: 0n,
  error: { code: "test", message: "finished by the test" },
});

const eventually = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return check();
};

describe("the operation_settled notification", () => {
  let heard: string[] = [];
  let listener: ChangeListener;
  beforeAll(async () => {
    listener = await listenForChanges(db, OPERATION_SETTLED_CHANNEL, {
      onNotify: (id) => heard.push(id),
      onConnected: () => {},
    });
  });
  afterAll(async () => listener?.stop());

  it("carries the id of an operation when its finish commits, once", async () => {
    heard = [];
    const op = await runningOperation();
    expect(await finishOperation(db.db, op.id, op.attempt, failed)).toMatchObject({ id: op.id, status: "failed" });
    expect(await eventually(() => heard.includes(op.id), 2000)).toBe(true);
    // Finished already: nothing is written, nothing is sent.
    expect(await finishOperation(db.db, op.id, op.attempt, failed)).toBeNull();
    await new Promise((r) => setTimeout(r, 200));
    expect(heard.filter((id) => id === op.id)).toHaveLength(1);
  });

  it("is not sent when the run's work fails and nothing is finished", async () => {
    heard = [];
    const op = await runningOperation();
    await expect(
      finishOperation(db.db, op.id, op.attempt, async () => {
        throw new Error("the work failed");
      }),
    ).rejects.toThrow("the work failed");
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).not.toContain(op.id);
    const [row] = await db.db.select().from(operations).where(eq(operations.id, op.id));
    expect(row!.status).toBe("running");
  });
});

describe.runIf(pg)("a request waiting in another process", () => {
  it("is woken by the notification of the process that finished the operation", async () => {
    const listener = await listenForSettledOperations(db);
    const { default: postgres } = await import("postgres");
    // Another process: its own connection, and no announcement in this one.
    const other = postgres(db.url!, { max: 1, onnotice: () => {} });
    try {
      expect(listener.connected()).toBe(true);
      const started = Date.now();
      let woken = false;
      const waiting = untilSettled("7b0b4d6e-0000-4000-8000-000000000001", 5_000).then(() => (woken = true));
      await other`select pg_notify(${OPERATION_SETTLED_CHANNEL}, ${"7b0b4d6e-0000-4000-8000-000000000001"})`;
      expect(await eventually(() => woken, 2000)).toBe(true);
      await waiting;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(waitingCount()).toBe(0);
    } finally {
      await other.end({ timeout: 1 });
      await listener.stop();
    }
  });
});
