import { invalidField } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";

const DAY_MS = 86_400_000;

/** YYYY-MM-DD of a moment (ms), UTC. */
export const dayText = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** UTC midnight (ms) of a date YYYY-MM-DD. */
export const dayMs = (d: string): number => Date.parse(`${d}T00:00:00Z`);
/** The date `n` days after `d` (before, for a negative `n`), YYYY-MM-DD. */
export const addDays = (d: string, n: number): string => dayText(dayMs(d) + n * DAY_MS);
/** Days from `from` to `to`, both included. */
export const daysIn = (from: string, to: string): number => Math.round((dayMs(to) - dayMs(from)) / DAY_MS) + 1;

/**
 * The period of a dashboard or analytics read (spec "GET /dashboards/overview"): `to` defaults to, and is
 * trimmed to, the last full day (yesterday, UTC); `from` defaults to `to` minus 29 days (30 days inclusive).
 * @returns dates YYYY-MM-DD. @throws ApiError 422 on `/from` when `from` is after the (trimmed) `to`.
 */
export function overviewPeriod(q: { from?: string; to?: string }, at: number = nowMs()): { from: string; to: string } {
  const lastFullDay = dayText(Math.floor(at / DAY_MS) * DAY_MS - DAY_MS);
  const to = q.to === undefined || q.to > lastFullDay ? lastFullDay : q.to;
  const from = q.from ?? dayText(dayMs(to) - 29 * DAY_MS);
  if (from > to)
    throw invalidField("/from", "out_of_range", `from must not be after to (${to}, the last full day at most)`);
  return { from, to };
}

/** Longest period an analytics read answers, days (a year and a day: a leap year's comparison). */
export const MAX_PERIOD_DAYS = 366;

/**
 * {@link overviewPeriod} for the analytics reads (issue 74 item 3), plus the previous period of the same
 * length that ends the day before `from` (the `comparison`'s `prev`).
 * @throws ApiError 422 on `/from` when `from` is after `to`, or the period is longer than {@link MAX_PERIOD_DAYS}.
 */
export function analyticsPeriod(q: { from?: string; to?: string }): {
  from: string;
  to: string;
  prevFrom: string;
  prevTo: string;
} {
  const { from, to } = overviewPeriod(q);
  const days = daysIn(from, to);
  if (days > MAX_PERIOD_DAYS)
    throw invalidField(
      "/from",
      "out_of_range",
      `the period may hold at most ${MAX_PERIOD_DAYS} days (from ${from} to ${to} holds ${days})`,
    );
  return { from, to, prevFrom: addDays(from, -days), prevTo: addDays(from, -1) };
}

/** The Monday (first day of the ISO week) of a date YYYY-MM-DD. */
export function weekStart(d: string): string {
  const dow = (new Date(dayMs(d)).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return addDays(d, -dow);
}
