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

/** The values of every {@link FrameAsyncLocalStorage} in one async context; never changed once made. */
type Frame = ReadonlyMap<object, unknown>;

const EMPTY_FRAME: Frame = new Map();
const FRAMES = Symbol.for("platform.asyncContextFrames");

/**
 * The one Node.js storage that carries the frames. Kept on globalThis: the server's bundle and Next.js's
 * route chunks each hold a copy of this module, and their storages must read the same frames.
 */
const frames: AsyncLocalStorage<Frame> = ((globalThis as { [FRAMES]?: AsyncLocalStorage<Frame> })[FRAMES] ??=
  new AsyncLocalStorage<Frame>());

/**
 * An `AsyncLocalStorage` whose instances all keep their values in one frame (an immutable map from
 * storage to value) carried by a single Node.js storage, as Node 24's `AsyncContextFrame` does.
 *
 * Why (issue 22, bench/HISTORY.md thirty-fourth session): on Node 20 and 22 each enabled Node storage
 * copies its value onto every promise and async resource made anywhere in the process (the `init` hook's
 * `_propagate`), for ever after its first `run`. Next.js enables three storages per route request, the
 * work notifier a fourth after the first write, so every promise got two async-id properties and four
 * more, which outgrow a promise's first property array. With these storages sharing one frame, a promise
 * gets one: 8-15 % fewer bytes allocated per request in the app (`--trace-gc-nvp`, health, `/cards`,
 * `/leads`). Storages that packages make from `node:async_hooks` directly (React's and better-auth's,
 * once the console has served a page) still add one each. Isolation is Node's own: a frame is set by
 * `AsyncLocalStorage.run`/`enterWith` of the shared storage and only ever replaced.
 *
 * Behaves as Node's class: `run`, `exit`, `enterWith`, `getStore`, `disable`, and the static `snapshot`
 * and `bind` (from {@link SnapshotAsyncLocalStorage}, which capture the frame with the rest of the
 * context). Two differences, in calls that neither Next.js nor our code makes: an `enterWith` made inside
 * another frame storage's `run` or `exit` ends with it (with Node's separate storages it would outlive
 * it); and after `disable`, contexts made before it keep their value for the next `run` elsewhere
 * (Node's keep it too, but lose it in contexts made while disabled, which these drop only in the context
 * that called `disable`).
 */
export class FrameAsyncLocalStorage<T> extends SnapshotAsyncLocalStorage<T> {
  /** False after {@link disable} until the next {@link run} or {@link enterWith}, as in Node. */
  #enabled = true;

  /** The value this storage has in the current async context, or undefined. */
  override getStore(): T | undefined {
    return this.#enabled ? (frames.getStore()?.get(this) as T | undefined) : undefined;
  }

  /** Runs `fn(...args)` with `store` as this storage's value, synchronously and in what it starts. */
  override run<R, TArgs extends unknown[]>(store: T, fn: (...args: TArgs) => R, ...args: TArgs): R {
    this.#enabled = true;
    const frame = frames.getStore() ?? EMPTY_FRAME;
    if (frame.has(this) && Object.is(frame.get(this), store)) return fn(...args);
    return frames.run(frameWith(frame, this, store), fn, ...args);
  }

  /** Runs `fn(...args)` with no value for this storage (the other storages keep theirs). */
  override exit<R, TArgs extends unknown[]>(fn: (...args: TArgs) => R, ...args: TArgs): R {
    const frame = frames.getStore();
    if (!frame?.has(this)) return fn(...args);
    return frames.run(frameWithout(frame, this), fn, ...args);
  }

  /** Gives this storage `store` for the rest of the current synchronous run and what it starts. */
  override enterWith(store: T): void {
    this.#enabled = true;
    frames.enterWith(frameWith(frames.getStore() ?? EMPTY_FRAME, this, store));
  }

  /**
   * Makes {@link getStore} answer undefined until the next {@link run} or {@link enterWith}, and drops this
   * storage's value from the calling context, so what it starts from now on has none.
   */
  override disable(): void {
    this.#enabled = false;
    const frame = frames.getStore();
    if (frame?.has(this)) frames.enterWith(frameWithout(frame, this));
  }
}

/** A copy of `frame` in which `storage` has `store`. */
function frameWith(frame: Frame, storage: object, store: unknown): Frame {
  const next = new Map(frame);
  next.set(storage, store);
  return next;
}

/** A copy of `frame` in which `storage` has no value. */
function frameWithout(frame: Frame, storage: object): Frame {
  const next = new Map(frame);
  next.delete(storage);
  return next;
}

/**
 * Whether `storage` (Node's class by default) propagates its values with async hooks, one property per
 * enabled storage on every new promise: Node 20 and 22 without `--experimental-async-context-frame`. Its
 * instances then carry their resource key as an own `kResourceStore` property; those of the frame-based
 * implementation (Node 24) do not.
 */
export function propagatesByHooks(storage: typeof AsyncLocalStorage = AsyncLocalStorage): boolean {
  return Object.hasOwn(new storage(), "kResourceStore");
}

/**
 * The class our own storages should use: {@link FrameAsyncLocalStorage} where Node's propagates with
 * hooks, so that ours share the frame with Next.js's; Node's own elsewhere.
 */
export const AppAsyncLocalStorage: typeof AsyncLocalStorage = propagatesByHooks()
  ? FrameAsyncLocalStorage
  : AsyncLocalStorage;

/**
 * Makes our class the `AsyncLocalStorage` that Next.js uses: {@link FrameAsyncLocalStorage} where `storage`
 * propagates with async hooks (Node 20, 22), else {@link SnapshotAsyncLocalStorage} where its snapshots
 * carry the deprecated accessor (Node 24). Next.js reads `globalThis.AsyncLocalStorage` and sets Node's
 * class there only when it is unset, when the server is created (`next()`), so this must run before that.
 *
 * Installs nothing when another class is already installed (someone chose it) or when neither saves
 * anything on this runtime.
 * @param target the object holding the global (tests pass their own).
 * @param storage Node's class, or a stand-in in tests.
 * @returns the class installed, or null.
 */
export function installAsyncLocalStorage(
  target: { AsyncLocalStorage?: unknown } = globalThis as { AsyncLocalStorage?: unknown },
  storage: typeof AsyncLocalStorage = AsyncLocalStorage,
): typeof AsyncLocalStorage | null {
  const current = target.AsyncLocalStorage;
  if (current !== undefined && current !== storage) return null;
  const chosen = propagatesByHooks(storage)
    ? FrameAsyncLocalStorage
    : snapshotHasAccessor(storage)
      ? SnapshotAsyncLocalStorage
      : null;
  if (chosen) target.AsyncLocalStorage = chosen;
  return chosen;
}
