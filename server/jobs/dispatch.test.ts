import { afterEach, describe, expect, it, vi } from "vitest";
import { inngest } from "@/inngest/client";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED } from "@/inngest/events";
import { setTestEnv } from "@/server/testing/test-db";
import { dispatchAfterCommit, dispatchExchangeResumed, noteQueuedDeliveries, registerLocalWaker } from "./dispatch";

afterEach(() => vi.restoreAllMocks());

describe("with the local driver", () => {
  it("wakes local drivers only after the work has returned (committed)", async () => {
    setTestEnv({ JOBS_DRIVER: "local" });
    const wake = vi.fn();
    const off = registerLocalWaker(wake);
    try {
      await dispatchAfterCommit(async () => {
        noteQueuedDeliveries(["d1", "d2"]);
        expect(wake).not.toHaveBeenCalled();
      });
      expect(wake).toHaveBeenCalledTimes(1);
    } finally {
      off();
    }
  });

  it("wakes nobody when the work throws (rolled back) or queued nothing", async () => {
    setTestEnv({ JOBS_DRIVER: "local" });
    const wake = vi.fn();
    const off = registerLocalWaker(wake);
    try {
      await expect(
        dispatchAfterCommit(async () => {
          noteQueuedDeliveries(["d1"]);
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      await dispatchAfterCommit(async () => noteQueuedDeliveries([]));
      expect(wake).not.toHaveBeenCalled();
    } finally {
      off();
    }
  });
});

describe("with Inngest", () => {
  it("sends one schedule event per delivery after the commit, and the resume event", async () => {
    setTestEnv({ JOBS_DRIVER: "inngest" });
    const send = vi.spyOn(inngest, "send").mockResolvedValue({ ids: [] } as never);
    await dispatchAfterCommit(async () => noteQueuedDeliveries(["d1", "d2"]));
    await new Promise((r) => setImmediate(r));
    expect(send).toHaveBeenCalledWith([
      { name: DELIVERY_SCHEDULED, data: { deliveryId: "d1" } },
      { name: DELIVERY_SCHEDULED, data: { deliveryId: "d2" } },
    ]);
    await dispatchExchangeResumed("t1");
    expect(send).toHaveBeenLastCalledWith({ name: EXCHANGE_RESUMED, data: { tenantId: "t1" } });
  });

  it("does not throw when Inngest cannot be reached (the sweep recovers)", async () => {
    setTestEnv({ JOBS_DRIVER: "inngest" });
    vi.spyOn(inngest, "send").mockRejectedValue(new Error("connect ECONNREFUSED"));
    await expect(dispatchExchangeResumed("t1")).resolves.toBeUndefined();
  });
});
