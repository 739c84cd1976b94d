import { describe, expect, it, vi } from "vitest";
import { afterCommit, announceDeliveries, announceExchangeResumed, registerWorkListener } from "./work-notifier";

function listener() {
  return { deliveriesDue: vi.fn(), exchangeResumed: vi.fn() };
}

describe("work notifier", () => {
  it("announces deliveries queued inside afterCommit only after the work has returned (committed)", async () => {
    const l = listener();
    const off = registerWorkListener(l);
    try {
      await afterCommit(async () => {
        announceDeliveries(["d1"]);
        announceDeliveries(["d2"]);
        expect(l.deliveriesDue).not.toHaveBeenCalled();
      });
      expect(l.deliveriesDue).toHaveBeenCalledTimes(1);
      expect(l.deliveriesDue).toHaveBeenCalledWith(["d1", "d2"]);
    } finally {
      off();
    }
  });

  it("announces a wallet's resumed exchange (with its mode) inside afterCommit only after the commit, never after a rollback", async () => {
    const l = listener();
    const off = registerWorkListener(l);
    try {
      await afterCommit(async () => {
        announceExchangeResumed("t1", false);
        expect(l.exchangeResumed).not.toHaveBeenCalled();
      });
      expect(l.exchangeResumed.mock.calls).toEqual([["t1", false]]);
      await expect(
        afterCommit(async () => {
          announceExchangeResumed("t2", true);
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      expect(l.exchangeResumed.mock.calls).toEqual([["t1", false]]);
    } finally {
      off();
    }
  });

  it("announces nothing when the work throws (rolled back) or queued nothing", async () => {
    const l = listener();
    const off = registerWorkListener(l);
    try {
      await expect(
        afterCommit(async () => {
          announceDeliveries(["d1"]);
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      await afterCommit(async () => announceDeliveries([]));
      expect(l.deliveriesDue).not.toHaveBeenCalled();
    } finally {
      off();
    }
  });

  it("announces at once outside a transaction, to every listener, and stops after unregistering", () => {
    const a = listener();
    const b = listener();
    const offA = registerWorkListener(a);
    const offB = registerWorkListener(b);
    announceDeliveries(["d1"]);
    announceExchangeResumed("t1", true);
    offA();
    announceExchangeResumed("t2", false);
    offB();
    expect(a.deliveriesDue).toHaveBeenCalledWith(["d1"]);
    expect(a.exchangeResumed.mock.calls).toEqual([["t1", true]]);
    expect(b.exchangeResumed.mock.calls).toEqual([
      ["t1", true],
      ["t2", false],
    ]);
  });

  it("never throws when a listener fails (the sweep recovers)", async () => {
    const off = registerWorkListener({
      deliveriesDue: () => Promise.reject(new Error("connect ECONNREFUSED")),
      exchangeResumed: () => {
        throw new Error("boom");
      },
    });
    try {
      expect(() => announceDeliveries(["d1"])).not.toThrow();
      expect(() => announceExchangeResumed("t1", true)).not.toThrow();
      await new Promise((r) => setImmediate(r));
    } finally {
      off();
    }
  });
});

describe("two bundles of the same process", () => {
  // The server entry (the local driver, the Inngest notifier) and Next.js's route modules (the writes that
  // announce work) are bundled apart, so each has its own copy of this module.
  it("a listener registered in one copy of the module hears what another copy announces", async () => {
    vi.resetModules();
    const routes = await import("./work-notifier");
    expect(routes.announceDeliveries).not.toBe(announceDeliveries);
    const l = { ...listener(), operationsDue: vi.fn() };
    const off = registerWorkListener(l);
    try {
      await routes.afterCommit(async () => {
        routes.announceDeliveries(["d9"]);
        routes.announceOperations(["op9"], true);
        routes.announceOperations(["op8"], false);
      });
      expect(l.deliveriesDue).toHaveBeenCalledWith(["d9"]);
      expect(l.operationsDue).toHaveBeenCalledWith(["op9"], true);
      expect(l.operationsDue).toHaveBeenCalledWith(["op8"], false);
    } finally {
      off();
    }
  });
});
