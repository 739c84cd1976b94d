import { defineConfig } from "@playwright/test";
import { APP_PORT, PRISM_PORT, THROUGH_PRISM } from "./e2e/prism/settings";

// End-to-end tests against the built app started by `npm run demo -- --prod` on its own embedded
// database in .data/e2e (so a developer's .data/pglite is untouched). Browsers come from Debian's
// chromium package: Playwright's own download cannot run on our machines.
// With E2E_PRISM=1 a second server, Stoplight Prism in proxy mode on the document the app serves
// (e2e/prism/proxy.ts), stands in front of the app, and the API specs send their requests through it.
const app = {
  command: "npm run demo -- --prod",
  url: `http://localhost:${APP_PORT}/api/health`,
  timeout: 120_000,
  reuseExistingServer: false,
  env: {
    PORT: String(APP_PORT),
    PGLITE_DIR: ".data/e2e/pglite",
    LOG_LEVEL: "warn",
    DATABASE_URL: "",
    WEBHOOK_ALLOW_PRIVATE_CIDRS: "127.0.0.0/8,::1/128",
    // A short lease, so that e2e/connector sees a killed connector's job come back within seconds.
    CONNECTOR_LEASE_SECONDS: "4",
  },
};
const prism = {
  command: "npx tsx e2e/prism/proxy.ts",
  port: PRISM_PORT,
  timeout: 180_000,
  reuseExistingServer: false,
  stderr: "pipe" as const,
};

/**
 * The doc tours (e2e/docs/tours.spec.ts) start demos of their own on the tours' port and use neither the app
 * nor Prism: CI runs them as a run of their own beside the other specs (`E2E_TOURS_ONLY=1`, no web server),
 * and leaves them out of the other run (`E2E_SKIP_TOURS=1`).
 */
const TOURS_ONLY = process.env.E2E_TOURS_ONLY === "1";
const ignored = [
  ...(process.env.E2E_API_THROUGH_PRISM_ONLY === "1" && !THROUGH_PRISM ? ["api/**"] : []),
  ...(process.env.E2E_SKIP_TOURS === "1" ? ["docs/tours.spec.ts"] : []),
];

export default defineConfig({
  testDir: "e2e",
  // CI's first run leaves the API specs to its second run, through Prism, and the tours to a run beside it (.ci/run).
  testIgnore: ignored,
  timeout: 30_000,
  // CI runs these specs beside the PostgreSQL test pass (.ci/run): an assertion that waits (a poll for a
  // connector's result, a page's answer) gets 10 s instead of 5 before it fails.
  expect: { timeout: 10_000 },
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${APP_PORT}`,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
  },
  webServer: TOURS_ONLY ? [] : THROUGH_PRISM ? [app, prism] : app,
});
