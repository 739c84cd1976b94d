import { InngestTestEngine } from "@inngest/test";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations, wallets } from "@/db/schema";
import { setLanguageModel } from "@/server/services/ai-seller/current-model";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { OPERATION_QUEUED, TEST_OPERATION_QUEUED } from "../events";
import {
  runOperationFunction,
  runTestOperationFunction,
  sweepOperations,
  TEST_OPERATION_CONCURRENCY,
} from "./run-operation";

// The Inngest door of paid operations (JOBS_DRIVER=inngest), with @inngest/test: the run step calls the
// same runOperation the local driver does, for real against the database.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let tt: TenantFixture;
let n = 0;
const P = { preview: "conversation-writes" as const };

async function queued(s = t): Promise<string> {
  const c = await call("POST", "/conversations", { key: s.key, json: { external_customer_id: `i-${++n}` }, ...P });
  const r = await call("POST", `/conversations/${c.body.id}/messages`, {
    key: s.key,
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
  tt = await makeTenant(db.db, { key: { mode: "test" } });
  await setPreview(db.db, t.tenantId, "conversation-writes", true);
  await setPreview(db.db, tt.tenantId, "conversation-writes", true);
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
    const [w] = await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, true)));
    const again = await new InngestTestEngine({ function: runOperationFunction }).execute({
      events: [{ name: OPERATION_QUEUED, data: { operationId: id } }],
    });
    expect(again.result).toEqual({ status: "succeeded", final: true });
    const [w2] = await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, true)));
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

describe("run-test-operation", () => {
  it("runs a test-mode operation with the offline model, within a function-wide budget of its own", async () => {
    const id = await queued(tt);
    // The process's (live) model fails: a test-mode operation never asks it.
    setLanguageModel({
      model: "gpt-4o-mini",
      writerModel: "gpt-4o-mini",
      reply: async () => {
        throw new Error("a test-mode operation must never reach the live model");
      },
      write: async () => {
        throw new Error("a test-mode operation must never reach the live model");
      },
      analystModel: "gpt-4o-mini",
      analyze: async () => {
        throw new Error("a test-mode operation must never reach the live model");
      },
    });
    try {
      const { result } = await new InngestTestEngine({ function: runTestOperationFunction }).execute({
        events: [{ name: TEST_OPERATION_QUEUED, data: { operationId: id } }],
      });
      expect(result).toEqual({ status: "succeeded", final: true });
    } finally {
      setLanguageModel(undefined);
    }
    const [op] = await db.db.select().from(operations).where(eq(operations.id, id));
    expect(op).toMatchObject({ status: "succeeded", livemode: false, chargedMinor: 0n });
    expect(op!.usage?.model).toBe("catalog-1");
    // Test work queues inside its own function, under a limit that live work's function does not share.
    expect(runTestOperationFunction.opts.triggers).toEqual([{ event: TEST_OPERATION_QUEUED }]);
    expect(runTestOperationFunction.opts.concurrency).toContainEqual({ limit: TEST_OPERATION_CONCURRENCY });
    expect(runOperationFunction.opts.triggers).toEqual([{ event: OPERATION_QUEUED }]);
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

  it("schedules test-mode operations to run-test-operation and live ones to run-operation", async () => {
    const liveOp = await queued();
    const testOp = await queued(tt);
    const { ctx } = await new InngestTestEngine({ function: sweepOperations }).execute({
      steps: [{ id: "schedule", handler: () => ({ ids: [] }) }],
    });
    const sent = (
      ctx.step.sendEvent as unknown as {
        mock: { calls: [string, { name: string; data: { operationId: string } }[]][] };
      }
    ).mock.calls[0]![1];
    expect(sent).toContainEqual({ name: OPERATION_QUEUED, data: { operationId: liveOp } });
    expect(sent).toContainEqual({ name: TEST_OPERATION_QUEUED, data: { operationId: testOp } });
    expect(sent.filter((e) => e.data.operationId === testOp)).toHaveLength(1);
  });
});
