import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";

/**
 * `AsyncLocalStorage` whose static `snapshot()` and `bind(fn)` capture the async context with one
 * `AsyncResource` and nothing else.
 *
 * Why (issue 22, bench/HISTORY.md nineteenth session): Next.js calls `AsyncLocalStorage.snapshot()` for
 * every request it handles (its work store's `runInCleanSnapshot`). On Node 20, 22 and 24 (20.20, 22.23
 * and 24.21 checked) that goes through `AsyncResource.prototype.bind`, which defines a deprecated
 * `asyncResource` accessor on every bound function through `util.deprecate`: a fresh getter, setter and
 * property descriptors per call, which V8 keeps reachable from long-lived maps until the next full
 * collection, so they are promoted (about 2 KB a request in the app), and promoted garbage is what
 * lengthens the full collections behind the bench's p99. The functions returned here behave the same
 * (the context captured at the call, `this` passed through) without the accessor.
 *
 * Instances are Node's own: `run`, `getStore`, `enterWith`, `exit` and `disable` are inherited.
 */
export class SnapshotAsyncLocalStorage<T> extends AsyncLocalStorage<T> {
  /**
   * Captures the current async context.
   * @returns `(fn, ...args) => fn(...args)` run inside the captured context, `this` passed through.
   */
  static override snapshot(): <R, TArgs extends unknown[]>(fn: (...args: TArgs) => R, ...args: TArgs) => R {
    const resource = new AsyncResource("bound-anonymous-fn");
    return function runInSnapshot<R, TArgs extends unknown[]>(
      this: unknown,
      fn: (...args: TArgs) => R,
      ...args: TArgs
    ): R {
      return resource.runInAsyncScope(fn, this, ...args);
    };
  }

  /**
   * Binds `fn` to the current async context.
   * @returns a function that calls `fn` inside the captured context with the caller's `this` and arguments.
   */
  static override bind<Func extends (...args: never[]) => unknown>(fn: Func): Func {
    const resource = new AsyncResource(fn.name || "bound-anonymous-fn");
    // Node's typing is generic over the whole function; the cast keeps its signature for callers.
    return function bound(this: unknown, ...args: Parameters<Func>): ReturnType<Func> {
      return resource.runInAsyncScope(fn as (...a: Parameters<Func>) => ReturnType<Func>, this, ...args);
    } as unknown as Func;
  }
}

/**
 * Whether functions from `storage.snapshot()` carry Node's deprecated `asyncResource` accessor (DEP0172;
 * Node 20, 22 and 24 do). The class above is installed only on runtimes that do.
 */
export function snapshotHasAccessor(storage: Pick<typeof AsyncLocalStorage, "snapshot">): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(storage.snapshot(), "asyncResource");
  return typeof descriptor?.get === "function";
}

/**
 * Makes `SnapshotAsyncLocalStorage` the `AsyncLocalStorage` that Next.js uses. Next.js reads
 * `globalThis.AsyncLocalStorage` and sets Node's class there only when it is unset, when the server is
 * created (`next()`), so this must run before that.
 *
 * Installs nothing when another class is already installed (someone chose it) or when `storage`'s
 * snapshots carry no accessor (nothing to save on this runtime).
 * @param target the object holding the global (tests pass their own).
 * @param storage Node's class, or a stand-in in tests.
 * @returns whether it installed.
 */
export function installAsyncLocalStorage(
  target: { AsyncLocalStorage?: unknown } = globalThis as { AsyncLocalStorage?: unknown },
  storage: Pick<typeof AsyncLocalStorage, "snapshot"> = AsyncLocalStorage,
): boolean {
  const current = target.AsyncLocalStorage;
  if (current !== undefined && current !== storage) return false;
  if (!snapshotHasAccessor(storage)) return false;
  target.AsyncLocalStorage = SnapshotAsyncLocalStorage;
  return true;
}
