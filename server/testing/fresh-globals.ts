/**
 * Setup file of the vitest project `shared` (vitest.config.ts), whose test files share one module cache per
 * worker (`isolate: false`: each file no longer pays for importing the app again, ~4 s a file). Before each
 * file it forgets the process-wide state the app keeps on `globalThis` under `Symbol.for("platform.…")`
 * (the installed database and environment, the clock, the rate-limit and key caches, the sign-in, the
 * request-log writer, the language model…), so a file starts as it would in a fresh process: nothing one
 * file set (a fake clock, an address's request count, an auth instance bound to its database) reaches
 * the next. State kept elsewhere than on those symbols is the reason a file belongs to the `isolated` project.
 */
const g = globalThis as unknown as Record<symbol, unknown>;
for (const key of Object.getOwnPropertySymbols(g)) {
  if (key.description?.startsWith("platform.")) delete g[key];
}
