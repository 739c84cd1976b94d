import { defineConfig } from "@playwright/test";

// End-to-end tests against the built app started by `npm run demo -- --prod` on its own embedded
// database in .data/e2e (so a developer's .data/pglite is untouched). Browsers come from Debian's
// chromium package: Playwright's own download cannot run on our machines.
const PORT = Number(process.env.E2E_PORT ?? 3100);

export default defineConfig({
  testDir: "e2e",
  timeout: 30_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
  },
  webServer: {
    command: "npm run demo -- --prod",
    url: `http://localhost:${PORT}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    env: { PORT: String(PORT), PGLITE_DIR: ".data/e2e/pglite", LOG_LEVEL: "warn", DATABASE_URL: "", WEBHOOK_ALLOW_PRIVATE_CIDRS: "127.0.0.0/8,::1/128" },
  },
});
