import { ESLint } from "eslint";
import { beforeAll, describe, expect, it, vi } from "vitest";

// The one-way layer rule of eslint.config.mjs (docs/architecture.md "Layers"), proven on the real configuration: a
// file placed at a path gets its layer from the path, and an import that goes up or sideways fails lint.
const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return result.messages.filter((m) => m.ruleId === "boundaries/dependencies").map((m) => m.message);
}

/** What eslint-plugin-boundaries printed as warnings while it read the configuration (its deprecations). */
const pluginWarnings: string[] = [];

describe("one-way layers are enforced by lint", () => {
  // The first lint loads the TypeScript resolver and the whole config: slow once, fast after. The plugin
  // warns of a deprecated option then, once a process.
  beforeAll(async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
      pluginWarnings.push(args.map(String).join(" "));
    });
    try {
      await layerErrors("server/lib/warm-up.ts", "export const x = 1;\n");
    } finally {
      warn.mockRestore();
    }
  }, 120_000);

  // Issue 68 item 6: single-file layers were element descriptors in the deprecated `mode: "file"`; they
  // are `boundaries/files` descriptors now, and the configuration uses no option the plugin deprecates.
  it("uses no option eslint-plugin-boundaries deprecates", () => {
    expect(pluginWarnings.filter((w) => /deprecated|no effect|will be removed/i.test(w))).toEqual([]);
  });

  it.each([
    [
      "a service importing the public API door",
      "server/services/cards/bad.ts",
      'import { API_PREFIX } from "@/server/public-api/pipeline";',
    ],
    [
      "a service importing a job",
      "server/services/cards/bad.ts",
      'import { startLocalDriver } from "@/server/jobs/local-driver";',
    ],
    [
      "a service importing the console door",
      "server/services/cards/bad.ts",
      'import { appRouter } from "@/server/trpc/root";',
    ],
    ["a service importing Inngest", "server/services/cards/bad.ts", 'import { inngest } from "@/inngest/client";'],
    [
      "a job importing the public API door",
      "server/jobs/bad.ts",
      'import { API_PREFIX } from "@/server/public-api/pipeline";',
    ],
    ["a job importing Inngest", "server/jobs/bad.ts", 'import { inngest } from "@/inngest/client";'],
    [
      "the public API door importing the console door",
      "server/public-api/bad.ts",
      'import { appRouter } from "@/server/trpc/root";',
    ],
    ["db importing a service", "db/bad.ts", 'import { createCard } from "@/server/services/cards/cards";'],
    [
      "the errors module importing a service",
      "server/errors.ts",
      'import { createCard } from "@/server/services/cards/cards";',
    ],
    [
      "the log module importing a job",
      "server/log.ts",
      'import { startLocalDriver } from "@/server/jobs/local-driver";',
    ],
    [
      "the process entry imported by a service",
      "server/services/cards/bad.ts",
      'import { startApp } from "@/server/http-server";',
    ],
    [
      "the env module importing a service",
      "server/env.ts",
      'import { createCard } from "@/server/services/cards/cards";',
    ],
    ["lib importing a service", "server/lib/bad.ts", 'import { createCard } from "@/server/services/cards/cards";'],
    [
      "the webhook transport importing a service",
      "server/webhook-transport/bad.ts",
      'import { createCard } from "@/server/services/cards/cards";',
    ],
    [
      "a schema importing the public API door",
      "server/schemas/bad.ts",
      'import { API_PREFIX } from "@/server/public-api/pipeline";',
    ],
    ["a service importing app", "server/services/cards/bad.ts", 'import Page from "@/app/console/page";'],
    ["the console door importing app", "server/trpc/bad.ts", 'import Page from "@/app/console/page";'],
    [
      "a page importing a service directly",
      "app/console/bad.tsx",
      'import { createCard } from "@/server/services/cards/cards";',
    ],
    ["a page importing a job", "app/console/bad.tsx", 'import { startLocalDriver } from "@/server/jobs/local-driver";'],
    ["the SDK importing the app's floor", "sdk/src/bad.ts", 'import { ApiError } from "@/server/errors";'],
    [
      "the SDK importing the app's webhook signature",
      "sdk/src/bad.ts",
      'import { verifySignature } from "../../server/webhook-transport/signature";',
    ],
    ["a service importing the SDK", "server/services/cards/bad.ts", 'import { createClient } from "@platform/sdk";'],
    [
      "the payments door importing the console door",
      "server/payments-door/bad.ts",
      'import { appRouter } from "@/server/trpc/root";',
    ],
    [
      "a service importing the payments door",
      "server/services/payments/bad.ts",
      'import { problem } from "@/server/payments-door/notification";',
    ],
  ])("refuses %s", async (_name, filePath, source) => {
    const errors = await layerErrors(filePath, `${source}\nexport const x = 1;\n`);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/Layer rule/);
  });

  it.each([
    [
      "server/errors.ts",
      'import { createCard } from "@/server/services/cards/cards";',
      "floor may not import services",
    ],
    [
      "server/services/cards/bad.ts",
      'import { startApp } from "@/server/http-server";',
      "services may not import process",
    ],
    ["server/main.ts", 'import { appRouter } from "@/server/trpc/root";', "process may not import door-console"],
  ])("names both layers in its message, single-file layers too (%s)", async (filePath, source, names) => {
    const errors = await layerErrors(filePath, `${source}\nexport const x = 1;\n`);
    expect(errors[0]).toContain(names);
  });

  it.each([
    [
      "a door importing a service",
      "server/public-api/ok.ts",
      'import { createCard } from "@/server/services/cards/cards";',
    ],
    [
      "a door importing a job",
      "server/trpc/ok.ts",
      'import { attemptDelivery } from "@/server/jobs/attempt-delivery";',
    ],
    ["a job importing a service", "server/jobs/ok.ts", 'import { createCard } from "@/server/services/cards/cards";'],
    [
      "a service importing another service and the floor",
      "server/services/cards/ok.ts",
      'import { getTenant } from "@/server/services/tenants/tenants";\nimport { env } from "@/server/env";',
    ],
    ["a page importing its door", "app/console/ok.tsx", 'import type { AppRouter } from "@/server/trpc/root";'],
    [
      "a route file importing the payments door, which imports a service",
      "app/api/payments/ok.ts",
      'import { paymentNotificationDoor } from "@/server/payments-door/notification";',
    ],
    [
      "the payments door importing a service",
      "server/payments-door/ok.ts",
      'import { startPayment } from "@/server/services/payments/payments";',
    ],
    [
      "the floor importing the floor",
      "server/lib/ok.ts",
      'import { env } from "@/server/env";\nimport { tenants } from "@/db/schema";',
    ],
    ["the SDK importing itself", "sdk/src/ok.ts", 'import { ApiError } from "./errors.js";'],
    ["an e2e test or example importing the SDK", "examples/ok.ts", 'import { createClient } from "@platform/sdk";'],
  ])("allows %s", async (_name, filePath, source) => {
    expect(await layerErrors(filePath, `${source}\nexport const x = 1;\n`)).toEqual([]);
  });
});

// Issue 68 item 6: the layer rule sees our own inngest/ door, not the package in node_modules; a rule of its
// own keeps services free of Inngest, the package and its helpers, however they are imported.
describe("services never import Inngest", () => {
  async function inngestErrors(filePath: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath });
    return result.messages
      .filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-syntax")
      .map((m) => m.message);
  }

  it.each([
    ["the package", "server/services/events/bad.ts", 'import { Inngest } from "inngest";\nexport const x = Inngest;'],
    [
      "its types",
      "server/services/events/bad.ts",
      'import type { GetEvents } from "inngest";\nexport type X = GetEvents<never>;',
    ],
    [
      "a subpath",
      "server/services/operations/bad.ts",
      'import { serve } from "inngest/next";\nexport const x = serve;',
    ],
    ["a re-export", "server/services/events/bad.ts", 'export { Inngest } from "inngest";'],
    ["a dynamic import", "server/services/events/bad.ts", 'export const load = () => import("inngest");'],
    ["a require", "server/services/events/bad.ts", 'export const load = () => require("inngest");'],
    [
      "its test helpers, from a test",
      "server/services/events/bad.int.test.ts",
      'import { InngestTestEngine } from "@inngest/test";\nexport const x = InngestTestEngine;',
    ],
  ])("refuses %s under server/services", async (_name, filePath, source) => {
    const errors = await inngestErrors(filePath, `${source}\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Services never import Inngest/);
  });

  it.each([
    ["the Inngest door", "inngest/functions/ok.ts", 'import { Inngest } from "inngest";\nexport const x = Inngest;'],
    [
      "a service, a package of a similar name",
      "server/services/events/ok.ts",
      'export const load = () => import("inngestish");',
    ],
  ])("allows %s", async (_name, filePath, source) => {
    expect(await inngestErrors(filePath, `${source}\n`)).toEqual([]);
  });
});

// Issue 68 item 6: operation-runs.ts and paid-operations.ts imported each other (paid-operations.ts now
// owns the engine's operation types). eslint-plugin-import's no-cycle follows every import of the folder's
// modules through the code base (packages left out).
it("the operations services import no circle", { timeout: 180_000 }, async () => {
  const cycles = new ESLint({
    cwd: process.cwd(),
    overrideConfig: [{ files: ["server/**/*.ts"], rules: { "import/no-cycle": ["error", { ignoreExternal: true }] } }],
  });
  const results = await cycles.lintFiles(["server/services/operations/*.ts"]);
  const found = results.flatMap((r) =>
    r.messages
      .filter((m) => m.ruleId === "import/no-cycle")
      .map((m) => `${r.filePath.slice(process.cwd().length + 1)}:${m.line} ${m.message}`),
  );
  expect(found).toEqual([]);
});
