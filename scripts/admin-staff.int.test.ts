import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installDatabase, openDatabase, type Database } from "@/db/client";
import { shareEmbedded } from "@/db/shared-embedded";
import { memberships } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { createTenant } from "@/server/services/tenants/tenants";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";

// With console sign-up closed, the operator CLI is how a staff account comes to exist (issue 23 item 4):
// `staff:create` makes the account and its membership and prints its password once; an email that
// already has an account is refused, not attached. Runs the real CLI against this test's database
// (PostgreSQL, or the embedded one shared over its socket as with a running app).

const run = promisify(execFile);
let db: Database;
let cliEnv: NodeJS.ProcessEnv;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    APP_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
  };
  if (process.env.DATABASE_URL) {
    const t = await openTestDatabase();
    db = t;
    cliEnv = { ...base, DATABASE_URL: t.url! };
    cleanup = t.drop;
  } else {
    setTestEnv();
    const dir = mkdtempSync(path.join(tmpdir(), "admin-staff-"));
    const pgliteDir = path.join(dir, "pglite");
    db = await openDatabase({ dir: pgliteDir, migrate: true });
    installDatabase(db);
    const unshare = await shareEmbedded(db, pgliteDir);
    cliEnv = { ...base, DATABASE_URL: "", PGLITE_DIR: pgliteDir };
    cleanup = async () => {
      await unshare();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }
});
afterAll(async () => cleanup());

async function admin(...args: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], {
      env: cliEnv,
    });
    return { code: 0, out: JSON.parse(stdout) as Record<string, unknown> };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: JSON.parse(e.stdout) as Record<string, unknown> };
  }
}

it("creates a staff account that signs in, and refuses an email that already has one", async () => {
  const tenant = await createTenant(db.db, { name: "CLI shop", cell: "ru", mainDomain: null });
  const made = await admin(
    "staff:create",
    "--tenant",
    tenant.id,
    "--email",
    "New.Person@cli.example",
    "--name",
    "New Person",
    "--role",
    "admin",
    "--rights",
    "manage_webhooks",
  );
  expect(made.code).toBe(0);
  expect(made.out).toMatchObject({
    staff_user_id: expect.any(String),
    tenant_id: tenant.id,
    email: "new.person@cli.example",
    password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
  });
  const rows = await db.db
    .select({ role: memberships.role, rights: memberships.rights })
    .from(memberships)
    .where(eq(memberships.staffUserId, made.out.staff_user_id as string));
  expect(rows).toEqual([{ role: "admin", rights: ["manage_webhooks"] }]);
  const signedIn = await createAuth(db.db).api.signInEmail({
    body: { email: "new.person@cli.example", password: made.out.password as string },
  });
  expect(signedIn.user.id).toBe(made.out.staff_user_id);

  const other = await createTenant(db.db, { name: "Other shop", cell: "ru", mainDomain: null });
  const again = await admin(
    "staff:create",
    "--tenant",
    other.id,
    "--email",
    "new.person@cli.example",
    "--name",
    "Someone",
  );
  expect(again.code).toBe(1);
  expect(again.out).toMatchObject({ error: { code: "invalid_state" } });
  expect(await db.db.select().from(memberships).where(eq(memberships.tenantId, other.id))).toEqual([]);
}, 60_000);
