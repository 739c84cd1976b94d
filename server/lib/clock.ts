/**
 * The time source of windows, expiries and cursors. Tests move it with {@link setClock}; production reads
 * the system clock. Returns milliseconds since the epoch.
 */
type ClockFn = () => number;
const KEY = Symbol.for("platform.clock");
type Holder = { [KEY]?: ClockFn };

export function nowMs(): number {
  const f = (globalThis as Holder)[KEY];
  return f ? f() : Date.now();
}

export function now(): Date {
  return new Date(nowMs());
}

/** Replaces the clock (undefined restores the system clock). */
export function setClock(f: ClockFn | undefined): void {
  (globalThis as Holder)[KEY] = f;
}
