import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(__dirname) } },
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
