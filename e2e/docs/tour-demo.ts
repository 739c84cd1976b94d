import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, rmSync } from "node:fs";
import path from "node:path";
import { APP_PORT } from "../prism/settings";

/** Port of the tours' own demo (`E2E_TOUR_PORT`, default the e2e app's port + 2; Prism takes + 1). */
export const TOUR_PORT = Number(process.env.E2E_TOUR_PORT ?? APP_PORT + 2);

/** Where the tours' demos live: under .data/e2e, which CI empties before every end-to-end run. */
export const TOURS_DIR = path.resolve(".data/e2e/tours");

/** Variables every demo of a tour gets, as `npm run demo` would on a developer's machine. */
function demoEnv(dataDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(TOUR_PORT),
    PGLITE_DIR: path.join(dataDir, "pglite"),
    DATABASE_URL: "",
    LOG_LEVEL: "warn",
    CELL_ORIGIN_RU: `http://localhost:${TOUR_PORT}`,
    ...extra,
  };
}

/**
 * Seeds a fresh demo once (`npm run demo`'s own `--prepare` step: migrations and the demo tenant, on the
 * production build as `npm run demo -- --prod` serves it) into `<TOURS_DIR>/template/.data`, for
 * {@link startTourDemo} to copy: every tour then starts from the same never-served demo, without seeding it
 * again.
 * @returns the template's `.data` directory
 * @throws Error when the step fails (its output is in the message)
 */
export function prepareTemplate(): string {
  const data = path.join(TOURS_DIR, "template", ".data");
  rmSync(path.dirname(data), { recursive: true, force: true });
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/demo.ts", "--prepare"], {
    env: demoEnv(data, {}),
    encoding: "utf8",
    timeout: 300_000,
  });
  if (r.status !== 0 || !existsSync(path.join(data, "demo.json")))
    throw new Error(`seeding the tours' demo failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return data;
}

/** A running demo of one tour. */
export interface TourDemo {
  /** The directory the tour runs in: its `.data/demo.json` is this demo's. */
  cwd: string;
  origin: string;
  /** The environment of the tour's shell: the demo's database for `npm run admin`, as a reader's default. */
  shellEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * Starts `npm run demo` (the same script, as its own process group) on a copy of the template in
 * `<TOURS_DIR>/<name>`, with the page's variables, and resolves once `GET /api/health` answers.
 * @throws Error when the demo exits or does not answer within two minutes
 */
export async function startTourDemo(name: string, template: string, env: Record<string, string>): Promise<TourDemo> {
  const cwd = path.join(TOURS_DIR, name);
  rmSync(cwd, { recursive: true, force: true });
  const data = path.join(cwd, ".data");
  cpSync(template, data, { recursive: true });
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
    env: demoEnv(data, env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const origin = `http://localhost:${TOUR_PORT}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the tour's demo exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      await stopGroup(child);
      throw new Error(`the tour's demo did not answer within 2 minutes:\n${output}`);
    }
    const up = await fetch(`${origin}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const shellEnv: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: path.join(data, "pglite"), DATABASE_URL: "" };
  for (const name of ["LOG_LEVEL", "PORT", "E2E_PORT", "E2E_PRISM"]) delete shellEnv[name];
  return { cwd, origin, shellEnv, stop: () => stopGroup(child) };
}

/** Stops a demo as Ctrl-C would (SIGTERM to its process group), and kills the group if it lingers. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // the group is gone already
    }
  };
  signal("SIGTERM");
  const late = setTimeout(() => signal("SIGKILL"), 15_000);
  await exited;
  clearTimeout(late);
}
