import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, setLogger } from "@/server/log";
import { startClaimLoop, type ClaimLoop } from "./claim-loop";

const messages = { jobFailed: "job failed", claimFailed: "claim failed" };

/** A job the test finishes (or fails) by hand. */
function deferred() {
  let resolve!: () => void, reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** Captures the log lines written while a test runs. */
function captureLog(): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  setLogger(createLogger("error", dest as never));
  return lines;
}

let loop: ClaimLoop | null = null;

/** A loop whose claims find nothing due; `claims()` counts them. */
function idleLoop(opts: { concurrency: number; pollMs: number }): { loop: ClaimLoop; claims: () => number } {
  let claims = 0;
  const started = startClaimLoop({
    ...opts,
    async claim() {
      claims++;
      return false;
    },
    messages,
  });
  return { loop: started, claims: () => claims };
}

afterEach(async () => {
  await loop?.stop();
  loop = null;
  setLogger(undefined);
});

describe("startClaimLoop", () => {
  it("keeps at most `concurrency` jobs in flight and claims again as soon as one finishes", async () => {
    const due = [1, 2, 3, 4, 5];
    const jobs = new Map<number, ReturnType<typeof deferred>>();
    const asked: number[] = [];
    loop = startClaimLoop({
      concurrency: 2,
      pollMs: 60_000,
      async claim(free, start) {
        asked.push(free);
        const taken = due.splice(0, free);
        for (const id of taken) {
          const d = deferred();
          jobs.set(id, d);
          start(() => d.promise, { id });
        }
        return taken.length === free;
      },
      messages,
    });
    await vi.waitFor(() => expect([...jobs.keys()]).toEqual([1, 2]));
    // Both slots taken: the loop waits (pollMs is a minute) until a job ends.
    await tick(20);
    expect(asked).toEqual([2]);
    jobs.get(1)!.resolve();
    await vi.waitFor(() => expect([...jobs.keys()]).toEqual([1, 2, 3]));
    expect(asked).toEqual([2, 1]);
    jobs.get(2)!.resolve();
    jobs.get(3)!.resolve();
    await vi.waitFor(() => expect([...jobs.keys()]).toEqual([1, 2, 3, 4, 5]));
    for (const d of jobs.values()) d.resolve();
  });

  it("pauses when nothing more is due and claims at once on wake()", async () => {
    const idle = idleLoop({ concurrency: 4, pollMs: 60_000 });
    loop = idle.loop;
    // Timers run late on a loaded machine: wait for a claim rather than a fixed time.
    await vi.waitFor(() => expect(idle.claims()).toBe(1));
    await tick(20);
    expect(idle.claims()).toBe(1);
    loop.wake();
    await vi.waitFor(() => expect(idle.claims()).toBe(2));
  });

  it("polls again after pollMs", async () => {
    const idle = idleLoop({ concurrency: 1, pollMs: 10 });
    loop = idle.loop;
    await vi.waitFor(() => expect(idle.claims()).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
  });

  it("logs a job or a claim that throws and goes on claiming", async () => {
    const lines = captureLog();
    let claims = 0;
    loop = startClaimLoop({
      concurrency: 1,
      pollMs: 5,
      async claim(_free, start) {
        claims++;
        if (claims === 1) throw new Error("database unreachable");
        if (claims === 2) start(() => Promise.reject(new Error("step broke")), { deliveryId: "dlv_1" });
        return false;
      },
      messages,
    });
    // Timers run late on a loaded machine: wait for the third claim rather than a fixed time.
    await vi.waitFor(() => expect(claims).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(["claim failed", "job failed"]));
    expect(lines.find((l) => l.msg === "job failed")).toMatchObject({ deliveryId: "dlv_1" });
  });

  it("stop() stops claiming and resolves only after the jobs in flight end", async () => {
    const job = deferred();
    let claims = 0;
    loop = startClaimLoop({
      concurrency: 2,
      pollMs: 5,
      async claim(_free, start) {
        if (claims++ === 0) start(() => job.promise, {});
        return false;
      },
      messages,
    });
    await vi.waitFor(() => expect(claims).toBeGreaterThanOrEqual(1));
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    loop = null;
    await tick(20);
    expect(stopped).toBe(false);
    const claimsAtStop = claims;
    job.resolve();
    await stopping;
    expect(stopped).toBe(true);
    await tick(20);
    expect(claims).toBe(claimsAtStop);
  });
});
