import { afterEach, describe, expect, it, vi } from "vitest";
import {
  afterCommit,
  announceDeliveries,
  announceExchangeResumed,
  announceOperations,
} from "@/server/services/events/work-notifier";
import { setTestEnv } from "@/server/testing/test-db";
import { inngest } from "./client";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED, OPERATION_QUEUED, TEST_OPERATION_QUEUED } from "./events";
import { registerInngestNotifier } from "./notifier";

afterEach(() => vi.restoreAllMocks());

describe("Inngest notifier", () => {
  it("sends one schedule event per delivery after the commit, and the resume event", async () => {
    setTestEnv({ JOBS_DRIVER: "inngest" });
    const send = vi.spyOn(inngest, "send").mockResolvedValue({ ids: [] } as never);
    const off = registerInngestNotifier();
    try {
      await afterCommit(async () => {
        announceDeliveries(["d1", "d2"]);
        expect(send).not.toHaveBeenCalled();
      });
      await new Promise((r) => setImmediate(r));
      expect(send).toHaveBeenCalledWith([
        { name: DELIVERY_SCHEDULED, data: { deliveryId: "d1" } },
        { name: DELIVERY_SCHEDULED, data: { deliveryId: "d2" } },
      ]);
      announceExchangeResumed("t1", true);
      expect(send).toHaveBeenLastCalledWith({ name: EXCHANGE_RESUMED, data: { tenantId: "t1", livemode: true } });
    } finally {
      off();
    }
  });

  it("sends live operations to run-operation's event and test-mode ones to run-test-operation's", async () => {
    setTestEnv({ JOBS_DRIVER: "inngest" });
    const send = vi.spyOn(inngest, "send").mockResolvedValue({ ids: [] } as never);
    const off = registerInngestNotifier();
    try {
      await afterCommit(async () => {
        announceOperations(["op1"], true);
        announceOperations(["op2"], false);
      });
      await new Promise((r) => setImmediate(r));
      expect(send).toHaveBeenCalledWith([{ name: OPERATION_QUEUED, data: { operationId: "op1" } }]);
      expect(send).toHaveBeenCalledWith([{ name: TEST_OPERATION_QUEUED, data: { operationId: "op2" } }]);
    } finally {
      off();
    }
  });

  it("does not throw when Inngest cannot be reached (the sweep recovers)", async () => {
    setTestEnv({ JOBS_DRIVER: "inngest" });
    const send = vi.spyOn(inngest, "send").mockRejectedValue(new Error("connect ECONNREFUSED"));
    const off = registerInngestNotifier();
    try {
      expect(() => announceExchangeResumed("t1", true)).not.toThrow();
      await new Promise((r) => setImmediate(r));
      expect(send).toHaveBeenCalledTimes(1);
    } finally {
      off();
    }
  });
});
