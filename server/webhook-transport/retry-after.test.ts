import { describe, expect, it } from "vitest";
import { parseRetryAfter, RETRY_AFTER_CAP_MS, retryPauseMs } from "./retry-after";

const NOW = new Date("2026-12-06T12:00:00.000Z");
const MIN = 60_000;

describe("parseRetryAfter", () => {
  it("reads delta-seconds", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("2026", NOW)).toBe(2026_000);
  });

  it("reads an HTTP-date from the attempt's clock", () => {
    expect(parseRetryAfter("Sun, 06 Dec 2026 12:30:00 GMT", NOW)).toBe(30 * MIN);
    expect(parseRetryAfter("Sunday, 06-Dec-26 12:30:00 GMT", NOW)).toBe(30 * MIN);
    expect(parseRetryAfter("Sun Dec  6 12:30:00 2026", NOW)).not.toBeNull();
  });

  it("a date in the past asks for no wait", () => {
    expect(parseRetryAfter("Sun, 06 Dec 2026 11:00:00 GMT", NOW)).toBe(0);
  });

  it.each([undefined, "", "soon", "-5", "1.5", "12abc", "2026-12-06T13:00:00Z", "Dec 7 2026"])("ignores %j", (raw) => {
    expect(parseRetryAfter(raw, NOW)).toBeNull();
  });

  it("does not cap by itself", () => {
    expect(parseRetryAfter(String(3 * 24 * 3600), NOW)).toBe(3 * 24 * 3600_000);
  });
});

describe("retryPauseMs", () => {
  it("429 and 503 with a longer Retry-After wait that long", () => {
    expect(retryPauseMs(MIN, 429, "120", NOW)).toBe(120_000);
    expect(retryPauseMs(MIN, 503, "Sun, 06 Dec 2026 14:00:00 GMT", NOW)).toBe(120 * MIN);
  });

  it("the schedule's pause is the minimum", () => {
    expect(retryPauseMs(5 * MIN, 429, "10", NOW)).toBe(5 * MIN);
    expect(retryPauseMs(5 * MIN, 503, "Sun, 06 Dec 2026 11:00:00 GMT", NOW)).toBe(5 * MIN);
  });

  it("caps at 24 h", () => {
    expect(retryPauseMs(MIN, 429, String(7 * 24 * 3600), NOW)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryPauseMs(MIN, 429, "99999999999999999999999", NOW)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryPauseMs(MIN, 503, "Sun, 20 Dec 2026 12:00:00 GMT", NOW)).toBe(RETRY_AFTER_CAP_MS);
  });

  it("other statuses, no answer or garbage keep the schedule", () => {
    expect(retryPauseMs(MIN, 500, "600", NOW)).toBe(MIN);
    expect(retryPauseMs(MIN, 404, "600", NOW)).toBe(MIN);
    expect(retryPauseMs(MIN, null, "600", NOW)).toBe(MIN);
    expect(retryPauseMs(MIN, 429, undefined, NOW)).toBe(MIN);
    expect(retryPauseMs(MIN, 429, "later", NOW)).toBe(MIN);
  });
});
