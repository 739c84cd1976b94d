import { untilSettled } from "@/server/services/operations/operation-settled";
import type { Reply } from "./define-route";

/**
 * How often a waiting request looks at its operation, ms: the safety net. A finish wakes its waiters at
 * once, in this process directly and in the others by NOTIFY (operation-settled.ts); a look finds what a
 * lost notification or a finish between the read and the wait did not announce.
 */
const POLL_MS = 250;
let pollMs = POLL_MS;

/** Sets (or with `undefined` restores) how often a waiting request looks at its operation; tests only. */
export function setSettlePollMs(ms: number | undefined): void {
  pollMs = ms ?? POLL_MS;
}

/**
 * Answers a creating request of an asynchronous operation that asked to `wait` (spec "Limits": `wait` 0 to
 * 20 seconds), outside any transaction: `read()` gives the answer as it is now (202 with the operation's id
 * while it runs); it is read again whenever the operation settles, and returned as soon as it is not 202,
 * or when `seconds` are up.
 */
export async function answerWhenSettled(
  read: () => Promise<{ status: number; body: unknown; operationId: string | null }>,
  seconds: number,
): Promise<Reply> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const a = await read();
    if (a.status !== 202 || !a.operationId || Date.now() >= until) return { status: a.status, body: a.body };
    // A finish committed between the read above and this call is not announced to us: the next look, at
    // most pollMs later, finds it.
    await untilSettled(a.operationId, Math.min(pollMs, Math.max(1, until - Date.now())));
  }
}
