import { execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { eq, sql } from "drizzle-orm";
import { walletLedger } from "@/db/schema";
import { afterAll, beforeAll, expect, it } from "vitest";
import { killProcess, startApiProcess } from "@/server/testing/child-process";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { KEY_CACHE_FRESH_MS } from "@/server/services/access/key-cache";

// Issue 22 item 1: two app processes on one PostgreSQL database each cache key rows in process; a key
// revoked and a wallet debited below zero through the operator CLI are refused by both within 1 s
// (the triggers' NOTIFY drops the cached rows). Needs PostgreSQL: processes share the database.

const pg = Boolean(process.env.DATABASE_URL);
const run = promisify(execFile);
/** The two processes' ports, picked by the system when they start. */
let ports: number[] = [];
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let revoked: TenantFixture;
let debited: TenantFixture;
let silent: TenantFixture;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!pg) return;
  db = await openTestDatabase();
  [revoked, debited, silent] = [await makeTenant(db.db), await makeTenant(db.db), await makeTenant(db.db)];
  // The polling below is far above the starting read limit; this test is about the cache.
  for (const t of [revoked, debited, silent]) {
    await setLimitOverride(db.db, { tenantId: t.tenantId }, { readPerMin: 100_000 });
    await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 100_000 });
  }
  const started = await Promise.all([startApiProcess(db.url!), startApiProcess(db.url!)]);
  children.push(...started.map((s) => s.child));
  ports = started.map((s) => s.port);
}, 120_000);
afterAll(async () => {
  await Promise.all(children.map((c) => killProcess(c)));
  await db?.drop();
});

async function status(port: number, key: string, path = "/cards?limit=1"): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/api/public/v1${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await r.arrayBuffer();
  return r.status;
}

/** Statuses of `key` on both processes. */
const both = (key: string, path?: string) => Promise.all(ports.map((p) => status(p, key, path)));

/** Polls both processes until each answers `want`; resolves with the ms it took, or throws after `limitMs`. */
async function untilBoth(key: string, want: number, limitMs: number, path?: string): Promise<number> {
  const start = performance.now();
  for (;;) {
    const got = await both(key, path);
    if (got.every((s) => s === want)) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error(`still ${got.join(", ")} after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Polls both processes every 20 ms from now on and resolves with the wall-clock time (ms since the epoch)
 * at which a poll started that both answered `want`: started before the CLI runs, so the time a CLI
 * process takes to exit after its commit is not counted.
 */
function firstTimeBoth(key: string, want: number, limitMs = 60_000): Promise<number> {
  return (async () => {
    const start = Date.now();
    for (;;) {
      const at = Date.now();
      const got = await both(key);
      if (got.every((s) => s === want)) return at;
      if (Date.now() - start > limitMs) throw new Error(`still ${got.join(", ")} after ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
}

/** `scripts/admin.ts <args> --json` on the test database, as an operator runs it. */
async function admin(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], {
    env: {
      ...process.env,
      DATABASE_URL: db.url!,
      CELL: "ru",
      NODE_ENV: "test",
      APP_SECRET: "admin-cli-test-secret-0123456789abcdef",
      LOG_LEVEL: "silent",
    },
    timeout: 90_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

it.runIf(pg)(
  "serves cached key rows, and both processes refuse a key revoked through the CLI within 1 s",
  { timeout: 120_000 },
  async () => {
    for (const t of [revoked, debited, silent]) {
      expect(await both(t.key)).toEqual([200, 200]);
      expect(await both(t.key, "/me")).toEqual([200, 200]);
    }

    // A change that sends no NOTIFY (triggers off for this session) is not seen while the row is fresh:
    // the processes really answer from their caches; the fresh time is the safety net that ends it.
    expect(await both(silent.key)).toEqual([200, 200]); // read just now: fresh in both caches
    await db.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update api_keys set revoked_at = now() where key_id = ${silent.keyId}`);
    });
    expect(await both(silent.key)).toEqual([200, 200]);
    await untilBoth(silent.key, 401, KEY_CACHE_FRESH_MS + 1500);

    const refused = firstTimeBoth(revoked.key, 401);
    const out = await admin(["key:revoke", "--key-id", revoked.keyId]);
    // `revoked_at` is taken inside the revoking transaction, so it is no later than its commit.
    expect((await refused) - Date.parse(out.revoked_at as string)).toBeLessThan(1000);
  },
);

it.runIf(pg)(
  "both processes answer 402 within 1 s of a wallet debited below zero through the CLI",
  { timeout: 120_000 },
  async () => {
    expect(await both(debited.key)).toEqual([200, 200]);
    const refused = firstTimeBoth(debited.key, 402);
    const out = await admin(["wallet:debit", "--tenant", debited.tenantId, "--amount", "5000.00"]);
    expect(out.balance).toMatchObject({ amount: "-4000.00" });
    // The ledger row's time is taken inside the debiting transaction, so it is no later than its commit.
    const [entry] = await db.db
      .select({ at: walletLedger.createdAt })
      .from(walletLedger)
      .where(eq(walletLedger.id, out.ledger_entry_id as string));
    expect((await refused) - entry.at.getTime()).toBeLessThan(1000);
    // /me stays open and shows the new state at once too.
    const me = await Promise.all(
      ports.map(async (p) => {
        const r = await fetch(`http://127.0.0.1:${p}/api/public/v1/me`, {
          headers: { authorization: `Bearer ${debited.key}` },
        });
        return { status: r.status, body: (await r.json()) as { wallet: { state: string; exchange: string } } };
      }),
    );
    for (const m of me)
      expect(m).toMatchObject({ status: 200, body: { wallet: { state: "negative", exchange: "suspended" } } });
  },
);
