import { describe, expect, it, vi } from "vitest";
import { announceOperationSettled, untilSettled, waitingCount } from "./operation-settled";

const settledWithin = async (p: Promise<void>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe("waiting for an operation of this process", () => {
  it("wakes every waiter of the operation at once, and only them", async () => {
    const a = untilSettled("op-1", 10_000);
    const b = untilSettled("op-1", 10_000);
    const other = untilSettled("op-2", 10_000);
    announceOperationSettled("op-1");
    expect(
      await settledWithin(
        Promise.all([a, b]).then(() => undefined),
        500,
      ),
    ).toBe(true);
    expect(await settledWithin(other, 50)).toBe(false);
    expect(waitingCount()).toBe(1);
    announceOperationSettled("op-2");
    expect(await settledWithin(other, 500)).toBe(true);
    expect(waitingCount()).toBe(0);
  });

  it("resolves after its time when nothing is announced, and forgets the waiter", async () => {
    const started = Date.now();
    await untilSettled("op-3", 30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(waitingCount()).toBe(0);
    // An announcement after the time ran out wakes nobody and throws nothing.
    announceOperationSettled("op-3");
    const again = untilSettled("op-3", 10_000);
    announceOperationSettled("op-3");
    expect(await settledWithin(again, 500)).toBe(true);
    expect(waitingCount()).toBe(0);
  });
});

describe("two bundles of the same process", () => {
  // The server entry and Next.js's route modules are bundled apart, so each has its own copy of this module:
  // the local driver announces in one, requests wait in the other.
  it("an announcement in one copy of the module wakes a waiter registered in another", async () => {
    vi.resetModules();
    const other = await import("./operation-settled");
    expect(other.untilSettled).not.toBe(untilSettled);
    const waiting = untilSettled("op-4", 10_000);
    expect(other.waitingCount()).toBe(1);
    other.announceOperationSettled("op-4");
    expect(await settledWithin(waiting, 500)).toBe(true);
    expect(waitingCount()).toBe(0);
  });
});
