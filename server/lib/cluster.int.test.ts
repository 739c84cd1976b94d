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

/**
 * Starts the cluster script on a port the system picks (a port picked here could meanwhile be any
 * outgoing connection's); resolves with its process and port once `count` processes print "listening".
 */
function startCluster(
  env: Record<string, string>,
  count: number,
): Promise<{ child: ChildProcess; port: number; out: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/testing/cluster-api-process.ts", "0"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  return new Promise((resolve, reject) => {
    const seen = () => {
      const ports = [...text.matchAll(/listening \d+ on (\d+)/g)].map((m) => Number(m[1]));
      if (ports.length >= count) resolve({ child, port: ports[0]!, out: () => text });
    };
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
    const started = await startCluster({ DATABASE_URL: db.url!, WEB_CONCURRENCY: "2" }, 2);
    const port = started.port;
    // Both workers share the one port.
    expect(new Set([...started.out().matchAll(/listening \d+ on (\d+)/g)].map((m) => m[1]))).toEqual(
      new Set([String(port)]),
    );
    primary = started.child;
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await me(port, t.key));
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
  const { child, out } = await startCluster({ DATABASE_URL: "", WEB_CONCURRENCY: "2" }, 1);
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
