import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations, wallets } from "@/db/schema";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { OPERATION_QUEUED } from "../events";
import { runOperationFunction, sweepOperations } from "./run-operation";

// The Inngest door of paid operations (JOBS_DRIVER=inngest), with @inngest/test: the run step calls the
// same runOperation the local driver does, for real against the database.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "conversation-writes" as const };

async function queued(): Promise<string> {
  const c = await call("POST", "/conversations", { key: t.key, json: { external_customer_id: `i-${++n}` }, ...P });
  const r = await call("POST", `/conversations/${c.body.id}/messages`, {
    key: t.key,
    json: { content: `question number ${n}` },
    idempotencyKey: `k-${n}`,
    ...P,
  });
  expect(r.status).toBe(202);
  return r.body.operation.id as string;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "conversation-writes", true);
});
afterAll(async () => db.drop());

describe("run-operation", () => {
  it("runs the operation in a step until it is final, and a repeated event changes nothing", async () => {
    const id = await queued();
    const engine = new InngestTestEngine({ function: runOperationFunction });
    const { result } = await engine.execute({ events: [{ name: OPERATION_QUEUED, data: { operationId: id } }] });
    expect(result).toEqual({ status: "succeeded", final: true });
    const [op] = await db.db.select().from(operations).where(eq(operations.id, id));
    expect(op).toMatchObject({ status: "succeeded", holdOpen: false, attempts: 1 });
    const [w] = await db.db.select().from(wallets).where(eq(wallets.tenantId, t.tenantId));
    const again = await new InngestTestEngine({ function: runOperationFunction }).execute({
      events: [{ name: OPERATION_QUEUED, data: { operationId: id } }],
    });
    expect(again.result).toEqual({ status: "succeeded", final: true });
    const [w2] = await db.db.select().from(wallets).where(eq(wallets.tenantId, t.tenantId));
    expect(w2!.balanceMinor).toBe(w!.balanceMinor);
  });

  it("waits and tries again while another worker holds the lease", async () => {
    const id = await queued();
    await db.db
      .update(operations)
      .set({ status: "running", lockedUntil: new Date(Date.now() + 60_000) })
      .where(eq(operations.id, id));
    const engine = new InngestTestEngine({ function: runOperationFunction });
    const { ctx } = await engine.execute({
      events: [{ name: OPERATION_QUEUED, data: { operationId: id } }],
      steps: [
        { id: "wait-0", handler: () => null },
        { id: "run-1", handler: () => ({ status: "succeeded", final: true }) },
      ],
    });
    expect(ctx.step.sleep).toHaveBeenCalled();
  });
});

describe("sweep-operations", () => {
  it("schedules due operations (queued, or leased by a dead worker) and not live ones", async () => {
    const due = await queued();
    const dead = await queued();
    const live = await queued();
    await db.db
      .update(operations)
      .set({ status: "running", lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(operations.id, dead));
    await db.db
      .update(operations)
      .set({ status: "running", lockedUntil: new Date(Date.now() + 60_000) })
      .where(eq(operations.id, live));
    const { ctx } = await new InngestTestEngine({ function: sweepOperations }).execute({
      steps: [{ id: "schedule", handler: () => ({ ids: [] }) }],
    });
    const sent = (
      ctx.step.sendEvent as unknown as { mock: { calls: [string, { data: { operationId: string } }[]][] } }
    ).mock.calls[0]![1].map((e) => e.data.operationId);
    expect(sent).toEqual(expect.arrayContaining([due, dead]));
    expect(sent).not.toContain(live);
  });
});
