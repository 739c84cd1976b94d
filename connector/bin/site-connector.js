#!/usr/bin/env node
// The `site-connector` command: starts the built CLI (dist/cli.js). A launcher of its own so that the
// command is linked by npm even before the package is built (the repository's root installs it from
// ./connector; `npm run connector:build` builds it).
try {
  await import("../dist/cli.js");
} catch (err) {
  if (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli.js")) {
    console.error("site-connector is not built: run `npm run connector:build` at the project's root first.");
    process.exit(1);
  }
  throw err;
}
