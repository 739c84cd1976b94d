import type { Db } from "@/db/client";
import { log } from "@/server/log";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { claimOperation, dueOperationIds, OPERATION_LEASE_MS } from "@/server/services/operations/operation-runs";
import { runOperation } from "./run-operation";

/** A running loop of operation steps. */
export interface OperationLoop {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * The local driver's operations part: finds due operations (queued, or running with an expired lease),
 * claims each (a lease, FOR UPDATE SKIP LOCKED among workers) and runs {@link runOperation}, at most
 * `concurrency` at a time; polls every `pollMs` and at once when woken (an operation was queued).
 */
export function startOperationLoop(
  db: Db,
  opts: { concurrency?: number; pollMs?: number; leaseMs?: number; model?: LanguageModel } = {},
): OperationLoop {
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const pollMs = opts.pollMs ?? 200;
  const leaseMs = opts.leaseMs ?? OPERATION_LEASE_MS;
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let wakeUp: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;
  const wake = () => {
    clearTimeout(timer);
    const w = wakeUp;
    wakeUp = null;
    w?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(wake, ms);
    });
  const loop = async () => {
    while (running) {
      const free = concurrency - inFlight.size;
      let started = 0;
      if (free > 0) {
        try {
          for (const id of await dueOperationIds(db, free)) {
            const claim = await claimOperation(db, id, leaseMs);
            if (!claim) continue;
            started++;
            const p: Promise<void> = runOperation(db, id, { claim, model: opts.model })
              .then(() => undefined)
              .catch((err: unknown) => log().error({ err, operationId: id }, "operation step failed"))
              .finally(() => {
                inFlight.delete(p);
                wake();
              });
            inFlight.add(p);
          }
        } catch (err) {
          if (running) log().error({ err }, "claiming operations failed");
        }
      }
      if (running && (started === 0 || inFlight.size >= concurrency)) await pause(pollMs);
    }
  };
  const looping = loop();
  return {
    wake,
    async stop() {
      running = false;
      wake();
      await looping;
      await Promise.all([...inFlight]);
    },
  };
}
