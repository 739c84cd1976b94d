import { OperationTimeoutError } from "../errors.js";
import type { Operation } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/** Options of {@link operationsResource}'s `wait`. */
export interface WaitOptions extends CallOptions {
  /** Longest wait, ms; default 60,000. */
  timeoutMs?: number;
  /** First pause between reads, ms; default 500; grows by half each time up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest pause between reads, ms; default 5,000. */
  maxIntervalMs?: number;
}

const FINISHED: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled"]);

/** True for a finished operation: `succeeded`, `failed` or `canceled` (spec "Asynchronous operation"). */
export function isFinished(op: Operation): boolean {
  return FINISHED.has(op.status);
}

/** Asynchronous operations (spec "GET /operations/{id}"). */
export function operationsResource(ctx: Context & { sleep(ms: number, signal: AbortSignal): Promise<void> }) {
  const get = async (id: string, o?: CallOptions): Promise<Operation> =>
    (await unwrap(ctx.raw.GET("/operations/{id}", { params: { path: { id } }, signal: o?.signal }))).operation;
  return {
    /** `GET /operations/{id}`: the envelope of an operation this integration started. @throws ApiError `not_found` */
    get,

    /**
     * Reads the operation until it is finished (`succeeded`, `failed` or `canceled`) and returns it; a
     * failed one is returned too, with `error`. Pauses grow from `intervalMs` to `maxIntervalMs`.
     * @throws OperationTimeoutError after `timeoutMs` with the last state read; ApiError as `get`
     */
    wait: async (id: string, o: WaitOptions = {}): Promise<Operation> => {
      const timeoutMs = o.timeoutMs ?? 60_000;
      const deadline = Date.now() + timeoutMs;
      let pause = o.intervalMs ?? 500;
      const signal = o.signal ?? new AbortController().signal;
      for (;;) {
        const op = await get(id, o);
        if (isFinished(op)) return op;
        const left = deadline - Date.now();
        if (left <= 0) throw new OperationTimeoutError(op, timeoutMs);
        await ctx.sleep(Math.min(pause, left), signal);
        pause = Math.min(pause * 1.5, o.maxIntervalMs ?? 5_000);
      }
    },
  };
}
