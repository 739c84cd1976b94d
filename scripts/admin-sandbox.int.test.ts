import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shareEmbedded } from "@/db/shared-embedded";
import { products, tenants } from "@/db/schema";
import { issueKey } from "@/server/services/keys/keys";
import { seedSandbox } from "@/server/services/sandbox/seed-sandbox";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { liveChecksums, sandboxChecksums } from "@/server/testing/live-checksum";
import { openTestDatabase } from "@/server/testing/test-db";

// `npm run admin -- sandbox:reset` as an operator runs it (issue 69 item 2): a separate process on the
// same database prints exactly `{"tenant_id", "livemode": false, "reset": true}`, the sandbox is seeded
// anew, and a checksum of every live table (every row of a table without `livemode`) is unchanged.

const run = promisify(execFile);
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let unshare: (() => Promise<void>) | undefined;
let dir: string;
let target: Record<string, string>;
let t: TenantFixture;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "admin-sandbox-"));
  db = await openTestDatabase();
  if (db.url) target = { DATABASE_URL: db.url };
  else {
    const pgliteDir = path.join(dir, "pglite");
    unshare = await shareEmbedded(db, pgliteDir);
    target = { DATABASE_URL: "", PGLITE_DIR: pgliteDir };
  }
  t = await makeTenant(db.db);
  await issueKey(db.db, { integrationId: t.integrationId, mode: "test" });
  await seedTenantData(db.db, t.tenantId, 1, t.integrationId);
  await seedSandbox(db.db, t.tenantId);
  // Something made in the sandbox, which the reset takes away.
  await db.db.insert(products).values({ tenantId: t.tenantId, livemode: false, name: "Mine", code: "mine" });
}, 120_000);
afterAll(async () => {
  await unshare?.();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `scripts/admin.ts <args> --json`: its exit code and stdout. */
async function admin(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], {
      env: {
        ...process.env,
        ...target,
        CELL: "ru",
        NODE_ENV: "test",
        APP_SECRET: "admin-cli-test-secret-0123456789abcdef",
        LOG_LEVEL: "silent",
      },
      timeout: 120_000,
    });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

describe("sandbox:reset", () => {
  it("prints exactly its answer, seeds the sandbox anew and changes no live row", { timeout: 240_000 }, async () => {
    const live = await liveChecksums(db.db);
    const sandbox = await sandboxChecksums(db.db, t.tenantId);
    const out = await admin(["sandbox:reset", "--tenant", t.tenantId]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`{"tenant_id":"${t.tenantId}","livemode":false,"reset":true}\n`);
    expect(JSON.parse(out.stdout)).toEqual({ tenant_id: t.tenantId, livemode: false, reset: true });
    expect(await liveChecksums(db.db)).toEqual(live);
    const after = await sandboxChecksums(db.db, t.tenantId);
    expect(after.leads).not.toBe(sandbox.leads);
    expect(after.leads).not.toMatch(/^0:/);
    const mine = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.livemode, false), eq(products.code, "mine")));
    expect(mine).toEqual([]);
    const [tenant] = await db.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expect(tenant.sandboxSeededAt).toBeInstanceOf(Date);
  });

  it("answers not_found for an unknown tenant and a usage error without --tenant", { timeout: 240_000 }, async () => {
    const id = crypto.randomUUID();
    expect(await admin(["sandbox:reset", "--tenant", id])).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ error: { code: "not_found", detail: "Tenant was not found." } })}\n`,
    });
    const bad = await admin(["sandbox:reset", "--tenant", "nope"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({ error: { code: "not_found", detail: "Tenant nope was not found." } });
    const none = await admin(["sandbox:reset"]);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: { code: "usage" } });
  });
});
