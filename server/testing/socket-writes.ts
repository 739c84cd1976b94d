import type { Socket } from "node:net";

/**
 * Counts the write system calls a socket makes from now on: each call of its `_write` or `_writev` is one
 * (tests of server/lib/coalesce-writes.ts).
 * @returns a counter whose `calls` grows with each write
 */
export function countSocketWrites(socket: Socket): { calls: number } {
  const counter = { calls: 0 };
  const s = socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => void>;
  for (const name of ["_write", "_writev"] as const) {
    const original = s[name].bind(socket);
    s[name] = (...args: unknown[]) => {
      counter.calls += 1;
      original(...args);
    };
  }
  return counter;
}
