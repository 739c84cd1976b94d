import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { get } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";

// Issue 22 item 7: `WEB_CONCURRENCY=2` on PostgreSQL runs two app processes on one port, both serving
// (server/lib/cluster.ts, as server/main.ts uses it; the process here serves the public API without
// Next.js so that no build is needed). On the embedded database one process runs, with a notice.

const pg = Boolean(process.env.DATABASE_URL);
const PORT = 37_000 + Math.floor(Math.random() * 1000);
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let primary: ChildProcess | undefined;

beforeAll(async () => {
  if (!pg) return;
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 10_000 });
}, 60_000);
afterAll(async () => {
  if (primary && primary.exitCode === null) {
    primary.kill("SIGKILL");
    await once(primary, "exit");
  }
  await db?.drop();
});

/** Starts the cluster script; resolves with its process once `count` processes print "listening". */
function startCluster(
  env: Record<string, string>,
  port: number,
  count: number,
): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/testing/cluster-api-process.ts", String(port)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  return new Promise((resolve, reject) => {
    const seen = () => (text.match(/listening \d+/g) ?? []).length >= count && resolve({ child, out: () => text });
    child.stdout!.on("data", (d: Buffer) => ((text += d.toString()), seen()));
    child.stderr!.on("data", (d: Buffer) => (text += d.toString()));
    child.once("exit", (code) => reject(new Error(`cluster exited with ${code} before it served:\n${text}`)));
  });
}

/** GET /me on a new connection each time (so the port's round robin picks the process). */
function me(port: number, key: string): Promise<{ status: number; pid: string }> {
  return new Promise((resolve, reject) => {
    get(
      { host: "127.0.0.1", port, path: "/api/public/v1/me", agent: false, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, pid: String(res.headers["x-test-pid"]) }));
      },
    ).on("error", reject);
  });
}

it.runIf(pg)(
  "WEB_CONCURRENCY=2 serves from two processes on one port, and SIGTERM stops them all",
  { timeout: 120_000 },
  async () => {
    const started = await startCluster({ DATABASE_URL: db.url!, WEB_CONCURRENCY: "2" }, PORT, 2);
    primary = started.child;
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await me(PORT, t.key));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const pids = new Set(answers.map((a) => a.pid));
    expect(pids.size).toBe(2);
    expect(pids.has(String(primary.pid))).toBe(false);
    const exited = once(primary, "exit");
    primary.kill("SIGTERM");
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    for (const pid of pids) expect(() => process.kill(Number(pid), 0)).toThrow();
  },
);

it.runIf(!pg)("runs one process on the embedded database, saying why", { timeout: 120_000 }, async () => {
  const { child, out } = await startCluster({ DATABASE_URL: "", WEB_CONCURRENCY: "2" }, PORT, 1);
  try {
    await new Promise((r) => setTimeout(r, 300));
    expect(out()).toMatch(/WEB_CONCURRENCY=2 ignored: the embedded database/);
    expect((out().match(/listening \d+/g) ?? []).length).toBe(1);
  } finally {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  }
});
