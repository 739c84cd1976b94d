import type { GetStepTools } from "inngest";
import { getDb } from "@/db/client";
import { runOperation } from "@/server/jobs/run-operation";
import { dueOperationIds } from "@/server/services/operations/operation-runs";
import { inngest } from "../client";
import { OPERATION_QUEUED, TEST_OPERATION_QUEUED, type OperationQueuedData } from "../events";

/**
 * Test-mode operation runs in flight at most, across every tenant (`run-test-operation`'s function-wide
 * concurrency limit): test work has this budget of its own and never takes live work's (issue 76 item 3).
 */
export const TEST_OPERATION_CONCURRENCY = 4;

/**
 * One operation's runs: `runOperation` in a step (it claims the row with a lease, so a repeated event or a
 * parallel local worker cannot run it twice). When the step finds it leased by a live run elsewhere, the
 * function waits one lease and tries again, a bounded number of times; the minute sweep covers the rest.
 */
async function runUntilFinal(operationId: string, step: GetStepTools<typeof inngest>) {
  for (let n = 0; n < 5; n++) {
    const r = await step.run(`run-${n}`, async () => runOperation(await getDb(), operationId));
    if (r.final) return r;
    await step.sleep(`wait-${n}`, "60s");
  }
  return { status: "running", final: false };
}

/**
 * Runs a live operation (`operations/operation.queued`) until it is final ({@link runUntilFinal}); one run
 * per operation at a time.
 */
export const runOperationFunction = inngest.createFunction(
  {
    id: "run-operation",
    retries: 0,
    triggers: [{ event: OPERATION_QUEUED }],
    concurrency: { key: "event.data.operationId", limit: 1 },
  },
  async ({ event, step }) => runUntilFinal((event.data as OperationQueuedData).operationId, step),
);

/**
 * Runs a test-mode operation (`operations/test-operation.queued`) the same way, as a function of its own:
 * its function-wide limit ({@link TEST_OPERATION_CONCURRENCY}) is test work's whole budget, so a backlog of
 * test-mode operations queues inside this function and never in front of `run-operation`'s live work
 * (issue 76 item 3). runOperation gives a test-mode operation the offline model whatever event ran it.
 */
export const runTestOperationFunction = inngest.createFunction(
  {
    id: "run-test-operation",
    retries: 0,
    triggers: [{ event: TEST_OPERATION_QUEUED }],
    concurrency: [{ key: "event.data.operationId", limit: 1 }, { limit: TEST_OPERATION_CONCURRENCY }],
  },
  async ({ event, step }) => runUntilFinal((event.data as OperationQueuedData).operationId, step),
);

/**
 * Every minute: operations due (queued, or running with an expired lease: a dead worker) get a run again,
 * live ones through `run-operation` and test-mode ones through `run-test-operation`.
 */
export const sweepOperations = inngest.createFunction(
  { id: "sweep-operations", triggers: [{ cron: "* * * * *" }] },
  async ({ step }) => {
    const live = await step.run("due", async () => dueOperationIds(await getDb(), 500, true));
    const test = await step.run("due-test", async () => dueOperationIds(await getDb(), 500, false));
    const events = [
      ...live.map((operationId) => ({ name: OPERATION_QUEUED, data: { operationId } })),
      ...test.map((operationId) => ({ name: TEST_OPERATION_QUEUED, data: { operationId } })),
    ];
    if (events.length) await step.sendEvent("schedule", events);
    return { scheduled: events.length };
  },
);
