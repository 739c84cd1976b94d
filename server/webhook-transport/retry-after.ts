/** Longest wait a receiver's `Retry-After` can impose on the next attempt, ms (issue 75 item 4: 24 h). */
export const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;

/** Statuses whose `Retry-After` is honoured: the receiver is throttling (429) or briefly down (503). */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

const DELTA_SECONDS = /^\d+$/;
const HTTP_DATE_START = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*[, ]/i;

/**
 * The wait a `Retry-After` value asks for (RFC 9110 §10.2.3), ms: delta-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, measured from `now`). A date in the past asks for no wait (0); a value
 * that is neither (empty, negative, fractional, unparsable) is ignored as null. Not capped here.
 * @param raw the header as the receiver sent it, or undefined when absent
 * @param now the attempt's clock
 */
export function parseRetryAfter(raw: string | undefined, now: Date): number | null {
  const value = raw?.trim();
  if (!value) return null;
  if (DELTA_SECONDS.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : RETRY_AFTER_CAP_MS;
  }
  // Only the three HTTP-date forms (all open with the day's name): Date.parse alone accepts far more.
  if (!HTTP_DATE_START.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/**
 * The pause before the next attempt after a failed one (issue 75 item 4): the fixed schedule's pause,
 * lengthened to the receiver's `Retry-After` when it answered 429 or 503 with one, at most 24 h:
 * `max(schedulePauseMs, min(retryAfter, 24 h))`. Other statuses, a missing or unreadable header: the
 * schedule's pause alone.
 * @param schedulePauseMs the pause of RETRY_SCHEDULE_MS for this attempt, ms
 * @param status the receiver's status, null when it never answered
 * @returns the pause, ms
 */
export function retryPauseMs(
  schedulePauseMs: number,
  status: number | null,
  retryAfter: string | undefined,
  now: Date,
): number {
  if (status === null || !RETRY_AFTER_STATUSES.includes(status)) return schedulePauseMs;
  const asked = parseRetryAfter(retryAfter, now);
  if (asked === null) return schedulePauseMs;
  return Math.max(schedulePauseMs, Math.min(asked, RETRY_AFTER_CAP_MS));
}
