import { getDb } from "@/db/client";
import { runOperation } from "@/server/jobs/run-operation";
import { dueOperationIds } from "@/server/services/operations/operation-runs";
import { inngest } from "../client";
import { OPERATION_QUEUED, type OperationQueuedData } from "../events";

/**
 * Runs one operation with `runOperation` in a step (it claims the row with a lease, so a repeated event or
 * a parallel local worker cannot run it twice). When the step finds it leased by a live run elsewhere, the
 * function waits one lease and tries again, a bounded number of times; the minute sweep covers the rest.
 */
export const runOperationFunction = inngest.createFunction(
  {
    id: "run-operation",
    retries: 0,
    triggers: [{ event: OPERATION_QUEUED }],
    concurrency: { key: "event.data.operationId", limit: 1 },
  },
  async ({ event, step }) => {
    const { operationId } = event.data as OperationQueuedData;
    for (let n = 0; n < 5; n++) {
      const r = await step.run(`run-${n}`, async () => runOperation(await getDb(), operationId));
      if (r.final) return r;
      await step.sleep(`wait-${n}`, "60s");
    }
    return { status: "running", final: false };
  },
);

/** Every minute: operations due (queued, or running with an expired lease: a dead worker) get a run again. */
export const sweepOperations = inngest.createFunction(
  { id: "sweep-operations", triggers: [{ cron: "* * * * *" }] },
  async ({ step }) => {
    const ids = await step.run("due", async () => dueOperationIds(await getDb(), 500));
    if (ids.length)
      await step.sendEvent(
        "schedule",
        ids.map((operationId) => ({ name: OPERATION_QUEUED, data: { operationId } })),
      );
    return { scheduled: ids.length };
  },
);
