#!/usr/bin/env node
// site-connector: publishes the platform's articles to this site. Run it where the site lives:
//   npx site-connector --base-url https://api.example.ru --token sct_... --target folder:./content/posts \
//     --public-url https://blog.example.com/posts
//   npx site-connector --base-url https://api.example.ru --token sct_... --target wordpress:https://blog.example.com \
//     --wp-user editor --wp-app-password "abcd efgh ijkl mnop qrst uvwx"
// The token may come from SITE_CONNECTOR_TOKEN instead of --token, the application password from
// WP_APP_PASSWORD (both keep the secret out of the process list).
import { parseArgs } from "node:util";
import { FolderTarget } from "./folder-target.js";
import { ConnectorClient } from "./protocol.js";
import { FatalError, Runner } from "./runner.js";
import type { Target } from "./target.js";
import { WordPressTarget } from "./wordpress-target.js";

const USAGE = `Usage: site-connector --base-url URL --token TOKEN --target folder:DIR [--public-url URL]
       site-connector --base-url URL --token TOKEN --target wordpress:URL --wp-user USER --wp-app-password PASS
                      [--state-file FILE] [--wait 0-25] [--once] [--verbose]
  --base-url    the platform's address (https://api.example.ru)
  --token       the site's connector token (or SITE_CONNECTOR_TOKEN)
  --target      folder:DIR  writes <slug>.md with YAML front matter into DIR
               wordpress:URL  posts through the WordPress REST API of the site at URL
  --public-url  where the site serves <slug> pages (https://blog.example.com/posts): the address reported
  --wp-user, --wp-app-password  a WordPress user and one of its application passwords (or WP_APP_PASSWORD)
  --state-file  where the wordpress target keeps post ids (default .site-connector-wordpress.json)
  --wait        seconds of each long poll (default 25)
  --once        stop when nothing is due instead of polling forever
  --verbose     also log claims and heartbeats`;

function fail(message: string): never {
  console.error(`site-connector: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        "base-url": { type: "string" },
        token: { type: "string" },
        target: { type: "string" },
        "public-url": { type: "string" },
        "wp-user": { type: "string" },
        "wp-app-password": { type: "string" },
        "state-file": { type: "string" },
        wait: { type: "string" },
        once: { type: "boolean" },
        verbose: { type: "boolean" },
        "apply-delay-ms": { type: "string" },
        help: { type: "boolean" },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const baseUrl = values["base-url"] ?? fail("--base-url is required");
const token = values.token ?? process.env.SITE_CONNECTOR_TOKEN ?? fail("--token (or SITE_CONNECTOR_TOKEN) is required");
const spec = values.target ?? fail("--target is required");
const wait = Number(values.wait ?? 25);
if (!Number.isInteger(wait) || wait < 0 || wait > 25) fail("--wait must be a whole number from 0 to 25");
for (const [name, url] of [
  ["--base-url", baseUrl],
  ["--public-url", values["public-url"]],
] as const)
  if (url !== undefined && !/^https?:\/\/[^/]/.test(url)) fail(`${name} must be an http(s) address`);

function target(): Target {
  const colon = spec.indexOf(":");
  const kind = colon === -1 ? spec : spec.slice(0, colon);
  const where = colon === -1 ? "" : spec.slice(colon + 1);
  if (kind === "folder") {
    if (!where) fail("--target folder:DIR needs a folder");
    return new FolderTarget(where, values["public-url"]);
  }
  if (kind === "wordpress") {
    if (!/^https?:\/\/[^/]/.test(where)) fail("--target wordpress:URL needs the site's http(s) address");
    return new WordPressTarget({
      url: where,
      user: values["wp-user"] ?? fail("--wp-user is required for the wordpress target"),
      appPassword:
        values["wp-app-password"] ??
        process.env.WP_APP_PASSWORD ??
        fail("--wp-app-password (or WP_APP_PASSWORD) is required for the wordpress target"),
      stateFile: values["state-file"],
    });
  }
  return fail(`unknown target "${kind}" (folder:DIR or wordpress:URL)`);
}

const runner = new Runner({
  client: new ConnectorClient(baseUrl, token),
  target: target(),
  waitSeconds: wait,
  once: values.once,
  applyDelayMs: values["apply-delay-ms"] ? Number(values["apply-delay-ms"]) : 0,
  debug: values.verbose ? (line) => console.log(`${new Date().toISOString()} ${line}`) : undefined,
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => runner.stop());
console.log(`${new Date().toISOString()} site-connector started: ${spec} <- ${baseUrl}`);
runner.run().then(
  () => {
    console.log(`${new Date().toISOString()} site-connector stopped`);
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`site-connector: ${err instanceof FatalError ? err.message : (err as Error).stack}`);
    process.exit(1);
  },
);
