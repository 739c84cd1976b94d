import { AsyncLocalStorage } from "node:async_hooks";
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { installAsyncLocalStorage, SnapshotAsyncLocalStorage, snapshotHasAccessor } from "./async-local-storage";

describe("SnapshotAsyncLocalStorage", () => {
  it("runs a snapshot's callback in the context it was taken in, later and elsewhere", async () => {
    const storage = new SnapshotAsyncLocalStorage<string>();
    const snapshot = storage.run("request-1", () => SnapshotAsyncLocalStorage.snapshot());
    await tick();
    const seen = storage.run("request-2", () =>
      snapshot((a: number, b: number) => `${storage.getStore()}:${a + b}`, 2, 3),
    );
    expect(seen).toBe("request-1:5");
    expect(storage.getStore()).toBeUndefined();
  });

  it("sees Node's own storages through a snapshot too", () => {
    const other = new AsyncLocalStorage<number>();
    const snapshot = other.run(7, () => SnapshotAsyncLocalStorage.snapshot());
    expect(snapshot(() => other.getStore())).toBe(7);
    expect(other.run(8, () => snapshot(() => other.getStore()))).toBe(7);
  });

  it("binds a function to the context, passing this and arguments through", () => {
    const storage = new SnapshotAsyncLocalStorage<string>();
    function describeCall(this: { name: string }, suffix: string): string {
      return `${this.name}/${storage.getStore()}/${suffix}`;
    }
    const bound = storage.run("bound-here", () => SnapshotAsyncLocalStorage.bind(describeCall));
    const target = { name: "target", bound };
    expect(storage.run("called-here", () => target.bound("x"))).toBe("target/bound-here/x");
  });

  it("passes a thrown error to the caller and restores the caller's context", () => {
    const storage = new SnapshotAsyncLocalStorage<string>();
    const snapshot = storage.run("inner", () => SnapshotAsyncLocalStorage.snapshot());
    storage.run("outer", () => {
      expect(() =>
        snapshot(() => {
          throw new Error(`thrown in ${storage.getStore()}`);
        }),
      ).toThrow("thrown in inner");
      expect(storage.getStore()).toBe("outer");
    });
  });

  it("gives functions without Node's deprecated asyncResource accessor", () => {
    expect(snapshotHasAccessor(SnapshotAsyncLocalStorage)).toBe(false);
    expect(Object.getOwnPropertyNames(SnapshotAsyncLocalStorage.bind(() => 1))).not.toContain("asyncResource");
  });
});

describe("installAsyncLocalStorage", () => {
  const nodeHasAccessor = snapshotHasAccessor(AsyncLocalStorage);

  it("installs over an unset global or Node's own class, where Node's snapshots carry the accessor", () => {
    const unset: { AsyncLocalStorage?: unknown } = {};
    expect(installAsyncLocalStorage(unset)).toBe(nodeHasAccessor);
    expect(unset.AsyncLocalStorage).toBe(nodeHasAccessor ? SnapshotAsyncLocalStorage : undefined);

    const nodes: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage };
    expect(installAsyncLocalStorage(nodes)).toBe(nodeHasAccessor);
    expect(nodes.AsyncLocalStorage).toBe(nodeHasAccessor ? SnapshotAsyncLocalStorage : AsyncLocalStorage);
  });

  it("leaves a class someone else installed", () => {
    class Chosen extends AsyncLocalStorage<unknown> {}
    const target: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage: Chosen };
    expect(installAsyncLocalStorage(target)).toBe(false);
    expect(target.AsyncLocalStorage).toBe(Chosen);
  });

  it("installs nothing when the runtime's snapshots carry no accessor", () => {
    const target: { AsyncLocalStorage?: unknown } = {};
    expect(installAsyncLocalStorage(target, SnapshotAsyncLocalStorage)).toBe(false);
    expect(target.AsyncLocalStorage).toBeUndefined();
  });

  it("installs over a runtime whose snapshots carry the accessor", () => {
    // A stand-in for Node 20's class, so this holds on runtimes that have dropped the accessor too.
    class WithAccessor extends AsyncLocalStorage<unknown> {
      static override snapshot() {
        const run = <R>(fn: () => R) => fn();
        Object.defineProperty(run, "asyncResource", { get: () => undefined });
        return run as ReturnType<typeof AsyncLocalStorage.snapshot>;
      }
    }
    const target: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage: WithAccessor };
    expect(installAsyncLocalStorage(target, WithAccessor)).toBe(true);
    expect(target.AsyncLocalStorage).toBe(SnapshotAsyncLocalStorage);
  });
});

const nodeMajor = Number(process.versions.node.split(".")[0]);

describe("on Node 20, 22 and 24", () => {
  it.runIf([20, 22, 24].includes(nodeMajor))("Node's own snapshots carry the accessor (what the class saves)", () => {
    expect(snapshotHasAccessor(AsyncLocalStorage)).toBe(true);
  });
});
