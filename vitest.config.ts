import { defineConfig } from "vitest/config";

/**
 * Test files that must run in a fresh module graph each (`isolate: true`): they replace modules or globals
 * with vi.mock / vi.stubGlobal / fake timers, which a shared module cache would carry into the next file, or
 * load copies of a module with vi.resetModules (two copies of a module must meet through `globalThis`).
 */
const ISOLATED = [
  "proxy.test.ts",
  "db/pglite-statements.int.test.ts",
  "server/services/events/work-notifier.test.ts",
  "server/services/operations/operation-settled.test.ts",
  "scripts/admin-under-load.int.test.ts",
  "server/http-server.int.test.ts",
  "server/jobs/repeating.test.ts",
  "server/trpc/console-cookies.int.test.ts",
];
const EXCLUDE = ["node_modules/**", "e2e/**", ".next/**"];

export default defineConfig({
  resolve: { alias: { "@platform/sdk": `${import.meta.dirname}/sdk/src/index.ts`, "@": import.meta.dirname } },
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files each get a fresh embedded database; two workers fit this 2-core machine.
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "isolated", include: ISOLATED, exclude: EXCLUDE } },
      {
        extends: true,
        test: {
          // Importing the app took ~4 s of every file's time when each file had a module graph of its own
          // (half of the suite's time): these files share one per worker, and start from a clean slate of the
          // app's process-wide state (server/testing/fresh-globals.ts).
          name: "shared",
          include: ["**/*.test.ts"],
          exclude: [...EXCLUDE, ...ISOLATED],
          isolate: false,
          setupFiles: ["server/testing/fresh-globals.ts"],
        },
      },
    ],
  },
});
