import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@platform/sdk": `${import.meta.dirname}/sdk/src/index.ts`, "@": import.meta.dirname } },
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "e2e/**", ".next/**"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files each get a fresh embedded database; two workers fit this 2-core machine.
    pool: "forks",
    maxWorkers: 2,
  },
});
