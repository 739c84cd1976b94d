import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installDatabase, openDatabase, type Database } from "@/db/client";
import { portFile, shareEmbedded } from "@/db/shared-embedded";
import { memberships, staffInvitations, staffSessions, staffUsers, staffVerifications, tenants } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { createInvitedAccount, invitationSecretHash } from "@/server/services/team/invitations";
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

it("staff:invite prints exactly the invitation link, which the invited email accepts with the rights", async () => {
  const tenant = await createTenant(db.db, { name: "Invite shop", cell: "ru", mainDomain: null });
  const { stdout } = await run(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/admin.ts",
      "staff:invite",
      "--tenant",
      tenant.id,
      "--email",
      "Invited@cli.example",
      "--rights",
      "manage_integrations,topup_wallet",
      "--json",
    ],
    { env: cliEnv },
  );
  const out = JSON.parse(stdout) as Record<string, string>;
  expect(Object.keys(out)).toEqual(["invitation_url"]);
  expect(stdout.trim().split("\n")).toHaveLength(1);
  const token = out.invitation_url.match(/^https?:\/\/[^/]+\/console\/invitations\/([A-Za-z0-9_-]{43})$/)?.[1];
  expect(token).toBeDefined();
  const [row] = await db.db
    .select()
    .from(staffInvitations)
    .where(eq(staffInvitations.secretHash, invitationSecretHash(token!)));
  expect(row).toMatchObject({
    tenantId: tenant.id,
    email: "invited@cli.example",
    rights: ["manage_integrations", "topup_wallet"],
    status: "pending",
  });

  // The link works like a console invitation: the new account joins with the rights, and signs in.
  await createInvitedAccount(db.db, { token: token!, name: "Invited", password: "correct-horse-battery" });
  const signedIn = await createAuth(db.db).api.signInEmail({
    body: { email: "invited@cli.example", password: "correct-horse-battery" },
  });
  expect(signedIn.user.email).toBe("invited@cli.example");
  const rows = await db.db
    .select({ role: memberships.role, rights: memberships.rights })
    .from(memberships)
    .where(eq(memberships.tenantId, tenant.id));
  expect(rows).toEqual([{ role: "member", rights: ["manage_integrations", "topup_wallet"] }]);
}, 60_000);

it("staff:invite refuses an unknown right or tenant with a clear error and exit code 1", async () => {
  const tenant = await createTenant(db.db, { name: "Refusing shop", cell: "ru", mainDomain: null });
  const badRight = await admin("staff:invite", "--tenant", tenant.id, "--email", "x@cli.example", "--rights", "fly");
  expect(badRight.code).toBe(1);
  expect(badRight.out).toMatchObject({ error: { code: "validation_failed" } });
  expect(JSON.stringify(badRight.out)).toContain("Unknown rights: fly");
  for (const t of ["00000000-0000-4000-8000-000000000000", "not-a-tenant"]) {
    const badTenant = await admin(
      "staff:invite",
      "--tenant",
      t,
      "--email",
      "x@cli.example",
      "--rights",
      "topup_wallet",
    );
    expect(badTenant.code).toBe(1);
    expect(badTenant.out).toMatchObject({ error: { code: "not_found" } });
  }
  expect(await db.db.select().from(staffInvitations).where(eq(staffInvitations.email, "x@cli.example"))).toEqual([]);
}, 60_000);

it("staff:reset-password prints a one-time link that sets the password and ends every session (issue 76 item 2)", async () => {
  const tenant = await createTenant(db.db, { name: "Reset shop", cell: "ru", mainDomain: null });
  const made = await admin("staff:create", "--tenant", tenant.id, "--email", "locked@cli.example", "--name", "Locked");
  const a = createAuth(db.db);
  await a.api.signInEmail({ body: { email: "locked@cli.example", password: made.out.password as string } });
  const userId = made.out.staff_user_id as string;
  expect(await db.db.select().from(staffSessions).where(eq(staffSessions.userId, userId))).toHaveLength(1);

  const before = Date.now();
  const r = await admin("staff:reset-password", "--email", " Locked@CLI.example ");
  expect(r.code).toBe(0);
  expect(Object.keys(r.out)).toEqual(["email", "reset_url", "expires_at"]);
  expect(r.out.email).toBe("locked@cli.example");
  const token = (r.out.reset_url as string).match(/^https?:\/\/[^/]+\/console\/reset-password\/([A-Za-z0-9_-]+)$/)?.[1];
  expect(token).toBeDefined();
  const expires = Date.parse(r.out.expires_at as string);
  expect(expires - before).toBeGreaterThan(3590_000);
  expect(expires - before).toBeLessThan(3700_000);
  // Stored as better-auth stores its reset tokens, hashed: the table does not hold the link's token.
  const stored = await db.db.select().from(staffVerifications).where(eq(staffVerifications.value, userId));
  expect(stored).toHaveLength(1);
  expect(JSON.stringify(stored)).not.toContain(token);

  // better-auth's own reset takes it: the new password works, the old one and every session do not.
  await a.api.resetPassword({ body: { newPassword: "a-brand-new-password", token: token! } });
  expect(await db.db.select().from(staffSessions).where(eq(staffSessions.userId, userId))).toEqual([]);
  await expect(
    a.api.signInEmail({ body: { email: "locked@cli.example", password: made.out.password as string } }),
  ).rejects.toThrow();
  const signedIn = await a.api.signInEmail({ body: { email: "locked@cli.example", password: "a-brand-new-password" } });
  expect(signedIn.user.id).toBe(userId);
  // once only
  await expect(a.api.resetPassword({ body: { newPassword: "yet-another-password", token: token! } })).rejects.toThrow(
    /invalid token/i,
  );

  const unknown = await admin("staff:reset-password", "--email", "nobody@cli.example");
  expect(unknown.code).toBe(1);
  expect(unknown.out).toMatchObject({ error: { code: "not_found" } });
  const missing = await admin("staff:reset-password");
  expect(missing.code).toBe(2);
  expect(await db.db.select().from(staffUsers).where(eq(staffUsers.email, "nobody@cli.example"))).toEqual([]);
}, 60_000);

it.skipIf(Boolean(process.env.DATABASE_URL))(
  "without the app's socket, refuses to open the directory the app holds (database_in_use), naming its pid",
  async () => {
    // As after a second app removed the port file on its way out: the CLI must not open the directory beside
    // the app, whose database would then not see its changes (db/directory-lock.ts).
    const file = portFile(cliEnv.PGLITE_DIR!);
    const port = readFileSync(file, "utf8");
    rmSync(file);
    try {
      const r = await admin("tenant:create", "--name", "Beside the app");
      expect(r.code).toBe(1);
      const error = (r.out as { error: { code: string; detail: string } }).error;
      expect(error.code).toBe("database_in_use");
      expect(error.detail).toContain(`pid ${process.pid}`);
      expect(await db.db.select().from(tenants).where(eq(tenants.name, "Beside the app"))).toEqual([]);
    } finally {
      writeFileSync(file, port);
    }
  },
);
