import { afterEach, describe, expect, it, vi } from "vitest";
import { startRepeating, type Repeating } from "./repeating";

/** A run the test finishes by hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

let job: Repeating | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await job?.stop();
  job = null;
});

describe("startRepeating", () => {
  it("runs at once, then once per interval", async () => {
    vi.useFakeTimers();
    let runs = 0;
    job = startRepeating(async () => void runs++, 1_000);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(5);
  });

  it("skips a tick while the previous run is still going, and goes on after a failed run", async () => {
    vi.useFakeTimers();
    const slow = deferred();
    let runs = 0;
    job = startRepeating(async () => {
      runs++;
      if (runs === 1) await slow.promise;
      if (runs === 2) throw new Error("boom");
    }, 1_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
    slow.resolve();
    await job.idle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(3);
  });

  it("stop() aborts the run's signal, waits for it, and no run starts after", async () => {
    vi.useFakeTimers();
    const slow = deferred();
    const seen: boolean[] = [];
    let runs = 0;
    const j = startRepeating(async (signal) => {
      runs++;
      await slow.promise;
      seen.push(signal.aborted);
    }, 1_000);
    let stopped = false;
    const stopping = j.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    slow.resolve();
    await stopping;
    expect(seen).toEqual([true]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
  });
});
