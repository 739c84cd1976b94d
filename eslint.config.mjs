import boundaries from "eslint-plugin-boundaries";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// One-way layers (DESIGN "Layers"; docs/architecture.md): imports go down, never up or sideways between doors.
//   app → doors (public-api with its openapi document, trpc, inngest, payments-door, scripts) → jobs → services → floor.
// `server/main.ts` and `server/http-server.ts` compose the process (doors, jobs) and are imported by scripts
// only; bench/ and the test helpers in server/testing may read any server layer. Tests (*.test.ts) are
// outside the rule: they reach in at whatever layer they prove.
const LAYERS = [
  { type: "app", pattern: "app/**", partialMatch: false },
  { type: "door-public-api", pattern: ["server/public-api/**", "server/openapi/**"], partialMatch: false },
  { type: "door-console", pattern: ["server/trpc/**", "server/auth/**"], partialMatch: false },
  { type: "door-inngest", pattern: "inngest/**", partialMatch: false },
  { type: "door-payments", pattern: "server/payments-door/**", partialMatch: false },
  { type: "door-scripts", pattern: "scripts/**", partialMatch: false },
  { type: "jobs", pattern: "server/jobs/**", partialMatch: false },
  { type: "services", pattern: "server/services/**", partialMatch: false },
  {
    type: "floor",
    pattern: ["server/schemas/**", "db/**", "server/lib/**", "server/webhook-transport/**"],
    partialMatch: false,
  },
  { type: "tooling", pattern: ["bench/**", "server/testing/**", "e2e/**", "examples/**"], partialMatch: false },
  // The published SDK (@platform/sdk) stands alone: integrators install it without this app, so it
  // imports nothing of it; only tooling (tests, e2e, examples) imports the SDK.
  { type: "sdk", pattern: "sdk/**", partialMatch: false },
  // The site connector (@platform/site-connector) runs on the tenant's site: it imports nothing of the
  // app either (DESIGN "The site connector is a door of its own"); only tooling imports it.
  { type: "connector", pattern: "connector/**", partialMatch: false },
];

// Layers that are single files, not folders: the process entry and the floor's top-level modules. Element
// patterns match folders only, so these are file descriptors whose category names the layer.
const SINGLE_FILE_LAYERS = [
  { category: "process", pattern: ["server/main.ts", "server/http-server.ts"] },
  { category: "floor", pattern: ["server/errors.ts", "server/env.ts", "server/log.ts", "server/errors-helper.ts"] },
];

// A layer is its folders' elements of that type and its single files of that category.
const layer = (name) => [{ element: { type: name } }, { file: { categories: name } }];
const allow = (from, ...types) => ({ from: layer(from), allow: types.flatMap((t) => layer(t).map((to) => ({ to }))) });

const layerRule = {
  files: ["**/*.ts", "**/*.tsx"],
  ignores: ["**/*.test.ts", "**/*.test.tsx"],
  plugins: { boundaries },
  settings: {
    "boundaries/elements": LAYERS,
    "boundaries/files": SINGLE_FILE_LAYERS,
    "boundaries/include": [
      "app/**",
      "server/**",
      "db/**",
      "inngest/**",
      "scripts/**",
      "bench/**",
      "e2e/**",
      "examples/**",
      "sdk/**",
      "connector/**",
    ],
  },
  rules: {
    "boundaries/dependencies": [
      "error",
      {
        default: "disallow",
        // A single-file layer has no element type: its file category names the layer.
        message:
          'Layer rule (docs/architecture.md "Layers"): {{#if from.type}}{{from.type}}{{else}}{{from.file.categories}}{{/if}} may not import {{#if to.type}}{{to.type}}{{else}}{{to.file.categories}}{{/if}}. Move the shared piece down to the lower layer.',
        policies: [
          allow("app", "app", "door-public-api", "door-console", "door-inngest", "door-payments", "floor"),
          allow("door-public-api", "door-public-api", "jobs", "services", "floor"),
          allow("door-console", "door-console", "jobs", "services", "floor"),
          allow("door-inngest", "door-inngest", "jobs", "services", "floor"),
          allow("door-payments", "door-payments", "jobs", "services", "floor"),
          allow(
            "door-scripts",
            "door-scripts",
            "door-public-api",
            "door-inngest",
            "process",
            "jobs",
            "services",
            "floor",
          ),
          allow("process", "process", "door-public-api", "door-inngest", "jobs", "services", "floor"),
          allow("jobs", "jobs", "services", "floor"),
          allow("services", "services", "floor"),
          allow("floor", "floor"),
          allow(
            "tooling",
            "tooling",
            "door-public-api",
            "door-console",
            "door-inngest",
            "door-payments",
            "door-scripts",
            "process",
            "jobs",
            "services",
            "floor",
            "sdk",
            "connector",
          ),
          allow("sdk", "sdk"),
          allow("connector", "connector"),
        ],
      },
    ],
  },
};

// Services never import Inngest, the package or its helpers (DESIGN "Layers"; issue 68 item 6): the
// layer rule above covers our own inngest/ door, not a package from node_modules. After-commit work is
// announced through the listener the door owning the driver registers (server/services/events/work-notifier.ts).
const NO_INNGEST_IN_SERVICES =
  'Services never import Inngest (DESIGN "Layers"): announce after-commit work through server/services/events/work-notifier.ts; the inngest/ door registers the listener.';
const servicesWithoutInngest = {
  files: ["server/services/**/*.ts", "server/services/**/*.tsx"],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        paths: [{ name: "inngest", message: NO_INNGEST_IN_SERVICES }],
        patterns: [{ group: ["inngest/*", "@inngest/*"], message: NO_INNGEST_IN_SERVICES }],
      },
    ],
    // no-restricted-imports does not look at import() and require().
    "no-restricted-syntax": [
      "error",
      {
        selector: "ImportExpression[source.value=/^(inngest($|\\u002F)|@inngest\\u002F)/]",
        message: NO_INNGEST_IN_SERVICES,
      },
      {
        selector: "CallExpression[callee.name='require'][arguments.0.value=/^(inngest($|\\u002F)|@inngest\\u002F)/]",
        message: NO_INNGEST_IN_SERVICES,
      },
    ],
  },
};

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "db/migrations/**",
      "next-env.d.ts",
      "coverage/**",
      "test-results/**",
      "playwright-report/**",
      "sdk/dist/**",
      "connector/dist/**",
      "sdk/src/generated/**",
    ],
  },
  {
    rules: {
      // Unused names prefixed with _ are deliberate (table-driven tests, ignored tuple members).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  layerRule,
  servicesWithoutInngest,
];

export default config;
