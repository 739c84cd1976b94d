import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { APP_PORT } from "../prism/settings";

/** Port of the test WordPress (`E2E_WP_PORT`, default the e2e app's port + 3: Prism + 1, tours + 2). */
export const WP_PORT = Number(process.env.E2E_WP_PORT ?? APP_PORT + 3);

/** Debian's WordPress, from the `wordpress` package (.ci/run installs it with `php-cli` and `php-mysql`). */
const WP_ROOT = "/usr/share/wordpress";
const DB_NAME = "wp_e2e";

/** A running WordPress with an application password for its REST API. */
export interface WordPressSite {
  /** e.g. `http://127.0.0.1:3103` */
  url: string;
  user: string;
  appPassword: string;
  stop(): Promise<void>;
}

/**
 * Starts a real WordPress for the connector's wordpress target: Debian's package served by PHP's built-in
 * server on 127.0.0.1:{@link WP_PORT}, on a fresh database `wp_e2e` of the machine's MariaDB
 * (127.0.0.1:3306, root without password), installed with one user `editor` and an application password.
 * Writes /etc/wordpress/config-127.0.0.1.php, which Debian's wp-config.php reads for that host.
 * @throws Error when WordPress or PHP is missing, or a step fails (its output in the message)
 */
export async function startWordPress(): Promise<WordPressSite> {
  if (!existsSync(path.join(WP_ROOT, "wp-settings.php")))
    throw new Error("WordPress is not installed: apt-get install --no-install-recommends wordpress php-cli php-mysql");
  mkdirSync("/etc/wordpress", { recursive: true });
  writeFileSync(
    "/etc/wordpress/config-127.0.0.1.php",
    [
      "<?php",
      `define('DB_NAME', '${DB_NAME}');`,
      "define('DB_USER', 'root');",
      "define('DB_PASSWORD', '');",
      "define('DB_HOST', '127.0.0.1:3306');",
      // Application passwords need HTTPS or a `local` environment.
      "define('WP_ENVIRONMENT_TYPE', 'local');",
      `define('WP_CONTENT_DIR', '${WP_ROOT}/wp-content');`,
      "",
    ].join("\n"),
  );
  php([
    "-r",
    `$m = new mysqli("127.0.0.1", "root", "", null, 3306); $m->query("drop database if exists ${DB_NAME}"); $m->query("create database ${DB_NAME}") or exit(1);`,
  ]);
  const url = `http://127.0.0.1:${WP_PORT}`;
  const server = spawn("php", ["-S", `127.0.0.1:${WP_PORT}`, "-t", WP_ROOT], { stdio: "ignore" });
  const installed = JSON.parse(php([path.resolve("e2e/connector/wordpress-setup.php"), url])) as {
    user: string;
    app_password: string;
  };
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${url}/?rest_route=/`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (server.exitCode !== null || Date.now() > deadline) throw new Error(`php -S on ${url} did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    user: installed.user,
    appPassword: installed.app_password,
    stop: async () => {
      if (server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    },
  };
}

/** Runs `php ARGS` and answers its standard output; throws with its output when it fails. */
function php(args: string[]): string {
  const r = spawnSync("php", args, { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`php ${args[0]} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout.slice(r.stdout.indexOf("{"));
}
