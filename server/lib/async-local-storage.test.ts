import { AsyncLocalStorage } from "node:async_hooks";
import { setImmediate as tick, setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import {
  AppAsyncLocalStorage,
  FrameAsyncLocalStorage,
  installAsyncLocalStorage,
  propagatesByHooks,
  SnapshotAsyncLocalStorage,
  snapshotHasAccessor,
} from "./async-local-storage";

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

describe("FrameAsyncLocalStorage", () => {
  it("gives each storage its own value, through awaits, timers and immediates", async () => {
    const a = new FrameAsyncLocalStorage<string>();
    const b = new FrameAsyncLocalStorage<number>();
    const seen = await a.run("a1", () =>
      b.run(1, async () => {
        await tick();
        const afterTick = [a.getStore(), b.getStore()];
        await sleep(2);
        const afterTimer = [a.getStore(), b.getStore()];
        const inImmediate = await new Promise((resolve) => setImmediate(() => resolve([a.getStore(), b.getStore()])));
        return { afterTick, afterTimer, inImmediate };
      }),
    );
    expect(seen).toEqual({ afterTick: ["a1", 1], afterTimer: ["a1", 1], inImmediate: ["a1", 1] });
    expect(a.getStore()).toBeUndefined();
    expect(b.getStore()).toBeUndefined();
  });

  it("keeps concurrent runs apart (the isolation requests rely on)", async () => {
    const request = new FrameAsyncLocalStorage<string>();
    const other = new FrameAsyncLocalStorage<string>();
    const work = (id: string, delays: number[]) =>
      request.run(id, () =>
        other.run(`${id}-other`, async () => {
          const seen: string[] = [];
          for (const ms of delays) {
            await sleep(ms);
            seen.push(`${request.getStore()}/${other.getStore()}`);
          }
          return seen;
        }),
      );
    const [one, two] = await Promise.all([work("r1", [3, 1, 2]), work("r2", [1, 3, 1])]);
    expect(one).toEqual(Array(3).fill("r1/r1-other"));
    expect(two).toEqual(Array(3).fill("r2/r2-other"));
  });

  it("restores the outer value after a nested run, also when it throws", () => {
    const s = new FrameAsyncLocalStorage<string>();
    s.run("outer", () => {
      expect(s.run("inner", () => s.getStore())).toBe("inner");
      expect(() =>
        s.run("thrown", () => {
          throw new Error(`in ${s.getStore()}`);
        }),
      ).toThrow("in thrown");
      expect(s.getStore()).toBe("outer");
    });
  });

  it("passes arguments and returns the callback's value", () => {
    const s = new FrameAsyncLocalStorage<string>();
    expect(s.run("x", (a: number, b: number) => `${s.getStore()}:${a + b}`, 2, 3)).toBe("x:5");
    expect(s.exit((a: number) => a * 2, 21)).toBe(42);
  });

  it("exit hides only its own storage, in the callback and what it starts", async () => {
    const a = new FrameAsyncLocalStorage<string>();
    const b = new FrameAsyncLocalStorage<string>();
    await a.run("a", () =>
      b.run("b", async () => {
        const inside = await a.exit(async () => {
          await tick();
          return [a.getStore(), b.getStore()];
        });
        expect(inside).toEqual([undefined, "b"]);
        expect([a.getStore(), b.getStore()]).toEqual(["a", "b"]);
      }),
    );
  });

  it("enterWith sets the value for the rest of the run and its continuations", async () => {
    const s = new FrameAsyncLocalStorage<string>();
    const seen = await new Promise<Array<string | undefined>>((resolve) => {
      setImmediate(async () => {
        s.enterWith("entered");
        const now = s.getStore();
        await tick();
        resolve([now, s.getStore()]);
      });
    });
    expect(seen).toEqual(["entered", "entered"]);
    expect(s.getStore()).toBeUndefined();
  });

  it("disable answers undefined until the next run", () => {
    const s = new FrameAsyncLocalStorage<string>();
    s.run("before", () => {
      s.disable();
      expect(s.getStore()).toBeUndefined();
      expect(s.run("again", () => s.getStore())).toBe("again");
    });
  });

  it("snapshot and bind capture the frame with the rest of the context", async () => {
    const s = new FrameAsyncLocalStorage<string>();
    const node = new AsyncLocalStorage<number>();
    const snapshot = s.run("taken", () => node.run(7, () => FrameAsyncLocalStorage.snapshot()));
    const bound = s.run("bound", () => FrameAsyncLocalStorage.bind(() => s.getStore()));
    await tick();
    expect(s.run("called", () => snapshot(() => [s.getStore(), node.getStore()]))).toEqual(["taken", 7]);
    expect(s.run("called", () => bound())).toBe("bound");
  });

  it("keeps two requests apart that run one snapshot at once", async () => {
    // Next.js takes a snapshot once and runs each request's work inside it (runInCleanSnapshot).
    const request = new FrameAsyncLocalStorage<string>();
    const snapshot = FrameAsyncLocalStorage.snapshot();
    const work = (id: string, delays: number[]) =>
      snapshot(() =>
        request.run(id, async () => {
          const seen: Array<string | undefined> = [];
          for (const ms of delays) {
            await sleep(ms);
            seen.push(request.getStore());
          }
          return seen;
        }),
      );
    const [one, two] = await Promise.all([work("r1", [2, 1, 3]), work("r2", [1, 3, 1])]);
    expect(one).toEqual(["r1", "r1", "r1"]);
    expect(two).toEqual(["r2", "r2", "r2"]);
  });

  it("exit passes a thrown error on and restores the value", () => {
    const s = new FrameAsyncLocalStorage<string>();
    s.run("kept", () => {
      expect(() =>
        s.exit(() => {
          throw new Error(`inside: ${String(s.getStore())}`);
        }),
      ).toThrow("inside: undefined");
      expect(s.getStore()).toBe("kept");
    });
  });

  it("after disable, what the caller starts has no value, even once the storage runs again", async () => {
    const s = new FrameAsyncLocalStorage<number>();
    const later = await new Promise<Promise<number | undefined>>((resolve) =>
      s.run(1, () => {
        s.disable();
        const started = sleep(1).then(() => s.getStore());
        s.run(2, () => undefined);
        resolve(started);
      }),
    );
    expect(await later).toBeUndefined();
  });

  it("an enterWith inside another frame storage's run ends with that run (the documented difference)", () => {
    const outer = new FrameAsyncLocalStorage<string>();
    const entered = new FrameAsyncLocalStorage<string>();
    outer.run("o", () => entered.enterWith("e"));
    expect(entered.getStore()).toBeUndefined();
  });

  it("is an AsyncLocalStorage", () => {
    expect(new FrameAsyncLocalStorage()).toBeInstanceOf(AsyncLocalStorage);
  });

  // What the class exists for: on a runtime that propagates with hooks, each enabled Node storage adds a
  // property to every promise; frame storages share one, however many run, and across module copies.
  it.runIf(propagatesByHooks())("adds no property to a promise per storage, across module copies too", async () => {
    const propertiesOfAPromise = () => Object.getOwnPropertySymbols(Promise.resolve()).length;
    const nest = (storages: AsyncLocalStorage<number>[]) =>
      storages.reduce<() => number>((inner, st) => () => st.run(1, inner), propertiesOfAPromise)();
    // A second copy of the module, as Next.js's route chunks hold one beside the server's bundle.
    vi.resetModules();
    const copy = await import("./async-local-storage");
    expect(copy.FrameAsyncLocalStorage).not.toBe(FrameAsyncLocalStorage);
    const one = nest([new FrameAsyncLocalStorage<number>()]);
    const four = nest([
      new FrameAsyncLocalStorage<number>(),
      new copy.FrameAsyncLocalStorage<number>(),
      new FrameAsyncLocalStorage<number>(),
      new copy.FrameAsyncLocalStorage<number>(),
    ]);
    expect(four).toBe(one);
    // The measure sees each of Node's own storages (what Next.js's cost before).
    const nodes = Array.from({ length: 4 }, () => new AsyncLocalStorage<number>());
    try {
      expect(nest(nodes)).toBe(four + 4);
    } finally {
      for (const n of nodes) n.disable();
    }
  });

  it("is the class our own storages use where Node's propagates with hooks", () => {
    expect(AppAsyncLocalStorage).toBe(propagatesByHooks() ? FrameAsyncLocalStorage : AsyncLocalStorage);
  });
});

describe("installAsyncLocalStorage", () => {
  const forNode = propagatesByHooks()
    ? FrameAsyncLocalStorage
    : snapshotHasAccessor(AsyncLocalStorage)
      ? SnapshotAsyncLocalStorage
      : null;

  /** A stand-in for a runtime's class: hooks-based instances carry `kResourceStore`; snapshots may carry the accessor. */
  function runtimeClass(opts: { hooks: boolean; accessor: boolean }): typeof AsyncLocalStorage {
    class StandIn {
      constructor() {
        if (opts.hooks) Object.assign(this, { kResourceStore: Symbol("kResourceStore") });
      }
      static snapshot() {
        const run = <R>(fn: () => R) => fn();
        if (opts.accessor) Object.defineProperty(run, "asyncResource", { get: () => undefined });
        return run;
      }
    }
    return StandIn as unknown as typeof AsyncLocalStorage;
  }

  it("installs the class chosen for this runtime over an unset global or Node's own class", () => {
    const unset: { AsyncLocalStorage?: unknown } = {};
    expect(installAsyncLocalStorage(unset)).toBe(forNode);
    expect(unset.AsyncLocalStorage).toBe(forNode ?? undefined);

    const nodes: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage };
    expect(installAsyncLocalStorage(nodes)).toBe(forNode);
    expect(nodes.AsyncLocalStorage).toBe(forNode ?? AsyncLocalStorage);
  });

  it("leaves a class someone else installed", () => {
    class Chosen extends AsyncLocalStorage<unknown> {}
    const target: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage: Chosen };
    expect(installAsyncLocalStorage(target)).toBeNull();
    expect(target.AsyncLocalStorage).toBe(Chosen);
  });

  it("installs the frame class where the runtime propagates with hooks (Node 20, 22)", () => {
    const runtime = runtimeClass({ hooks: true, accessor: true });
    const target: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage: runtime };
    expect(installAsyncLocalStorage(target, runtime)).toBe(FrameAsyncLocalStorage);
    expect(target.AsyncLocalStorage).toBe(FrameAsyncLocalStorage);
  });

  it("installs the snapshot class where only the snapshots' accessor is to save (Node 24)", () => {
    const runtime = runtimeClass({ hooks: false, accessor: true });
    const target: { AsyncLocalStorage?: unknown } = { AsyncLocalStorage: runtime };
    expect(installAsyncLocalStorage(target, runtime)).toBe(SnapshotAsyncLocalStorage);
    expect(target.AsyncLocalStorage).toBe(SnapshotAsyncLocalStorage);
  });

  it("installs nothing where neither saves anything", () => {
    const runtime = runtimeClass({ hooks: false, accessor: false });
    const target: { AsyncLocalStorage?: unknown } = {};
    expect(installAsyncLocalStorage(target, runtime)).toBeNull();
    expect(target.AsyncLocalStorage).toBeUndefined();
  });
});

const nodeMajor = Number(process.versions.node.split(".")[0]);

describe("on Node 20, 22 and 24", () => {
  it.runIf([20, 22].includes(nodeMajor))("the frame class is installed on Node 20 and 22", () => {
    expect(installAsyncLocalStorage({})).toBe(FrameAsyncLocalStorage);
  });

  it.runIf([20, 22, 24].includes(nodeMajor))("Node's own snapshots carry the accessor (what the class saves)", () => {
    expect(snapshotHasAccessor(AsyncLocalStorage)).toBe(true);
  });
});
