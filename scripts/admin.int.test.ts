import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shareEmbedded } from "@/db/shared-embedded";
import { sites, tenants } from "@/db/schema";
import { hashSecret } from "@/server/services/keys/key-format";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// The operator CLI as an operator runs it: a separate process reading its own environment (CELL) and
// opening the database named by DATABASE_URL, or, on the embedded database, reaching it through the
// socket a running app shares it on (as `npm run admin` does while the app runs).

const run = promisify(execFile);
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let unshare: (() => Promise<void>) | undefined;
let dir: string;
let target: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "admin-cli-"));
  db = await openTestDatabase();
  if (db.url) target = { DATABASE_URL: db.url };
  else {
    const pgliteDir = path.join(dir, "pglite");
    unshare = await shareEmbedded(db, pgliteDir);
    target = { DATABASE_URL: "", PGLITE_DIR: pgliteDir };
  }
});
afterAll(async () => {
  await unshare?.();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `scripts/admin.ts <args> --json` with `CELL=<cell>` and answers its one JSON object. */
async function admin(cell: string, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], {
    env: {
      ...process.env,
      ...target,
      CELL: cell,
      NODE_ENV: "test",
      APP_SECRET: "admin-cli-test-secret-0123456789abcdef",
      LOG_LEVEL: "silent",
    },
    timeout: 90_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("tenant:create", () => {
  // A CLI process compiles its imports with tsx first: slow on a busy machine, hence the timeouts.
  it("makes a tenant of the process's own cell when --cell is not given", { timeout: 120_000 }, async () => {
    const out = await admin("en", ["tenant:create", "--name", "Shop EN"]);
    expect(out).toMatchObject({ name: "Shop EN", cell: "en" });
    const [row] = await db.db
      .select({ cell: tenants.cell })
      .from(tenants)
      .where(eq(tenants.id, out.tenant_id as string));
    expect(row).toEqual({ cell: "en" });
  });

  it("makes a tenant of the cell given with --cell", { timeout: 120_000 }, async () => {
    expect(await admin("en", ["tenant:create", "--name", "Shop ID", "--cell", "id"])).toMatchObject({
      name: "Shop ID",
      cell: "id",
    });
  });
});

describe("preview:set", () => {
  it("switches a preview feature on and off and prints the tenant's previews", { timeout: 240_000 }, async () => {
    const t = await admin("ru", ["tenant:create", "--name", "Preview shop"]);
    const args = ["preview:set", "--tenant", t.tenant_id as string, "--feature", "conversation-writes"];
    expect(await admin("ru", [...args, "--enabled", "true"])).toEqual({
      tenant_id: t.tenant_id,
      preview: expect.objectContaining({ "conversation-writes": true, "test-mode": false }),
    });
    const [row] = await db.db
      .select({ previews: tenants.previews })
      .from(tenants)
      .where(eq(tenants.id, t.tenant_id as string));
    expect(row.previews).toEqual(["conversation-writes"]);
    expect(await admin("ru", [...args, "--enabled", "false"])).toEqual({
      tenant_id: t.tenant_id,
      preview: expect.objectContaining({ "conversation-writes": false, "test-mode": false }),
    });
    const bad = await admin("ru", [
      "preview:set",
      "--tenant",
      t.tenant_id as string,
      "--feature",
      "x",
      "--enabled",
      "true",
    ]).catch((e: { stdout: string }) => JSON.parse(e.stdout) as Record<string, unknown>);
    expect(bad).toMatchObject({ error: { code: "validation_failed" } });
    // crm:set-mode (issue 70): JSON answer; the tenant's leads then carry owner external.
    expect(await admin("ru", ["crm:set-mode", "--tenant", t.tenant_id as string, "--mode", "external"])).toEqual({
      tenant_id: t.tenant_id,
      crm_mode: "external",
      previous: "internal",
      changed: true,
    });
    const [mode] = await db.db
      .select({ crmMode: tenants.crmMode })
      .from(tenants)
      .where(eq(tenants.id, t.tenant_id as string));
    expect(mode.crmMode).toBe("external");
  });
});

describe("wallet:set-limits and channel:set", () => {
  it("sets a tenant's spend limits and a channel's AI daily limit", { timeout: 240_000 }, async () => {
    const t = await admin("ru", ["tenant:create", "--name", "Limits shop"]);
    const tenant = t.tenant_id as string;
    expect(
      await admin("ru", [
        "wallet:set-limits",
        "--tenant",
        tenant,
        "--daily-limit",
        "500.00",
        "--max-operation-cost",
        "50",
      ]),
    ).toEqual({
      tenant_id: tenant,
      daily_limit: { amount: "500.00", currency: "RUB" },
      max_operation_cost: { amount: "50.00", currency: "RUB" },
    });
    expect(await admin("ru", ["wallet:set-limits", "--tenant", tenant, "--daily-limit", "none"])).toMatchObject({
      daily_limit: null,
      max_operation_cost: { amount: "50.00", currency: "RUB" },
    });
    const i = await admin("ru", ["integration:create", "--tenant", tenant, "--name", "Bot", "--scopes", "cards:read"]);
    const integration = i.integration_id as string;
    expect(await admin("ru", ["channel:set", "--integration", integration, "--ai-daily-limit", "50"])).toMatchObject({
      integration_id: integration,
      ai_daily_limit: 50,
      ai_enabled: true,
    });
    const tooMany = await admin("ru", ["channel:set", "--integration", integration, "--ai-daily-limit", "10001"]).catch(
      (e: { stdout: string }) => JSON.parse(e.stdout) as Record<string, unknown>,
    );
    expect(tooMany).toMatchObject({ error: { code: "validation_failed" } });
  });
});

describe("site:create", () => {
  it(
    "adds a live site and prints its connector token once, storing only the token's hash",
    { timeout: 120_000 },
    async () => {
      const t = await makeTenant(db.db);
      const out = await admin("ru", [
        "site:create",
        "--tenant",
        t.tenantId,
        "--domain",
        "Blog.Example.com",
        "--drafts-only",
      ]);
      expect(out).toEqual({
        site_id: expect.any(String),
        connector_token: expect.stringMatching(/^sct_[A-Za-z0-9_-]{43}$/),
      });
      const [row] = await db.db
        .select()
        .from(sites)
        .where(eq(sites.id, out.site_id as string));
      expect(row).toMatchObject({
        tenantId: t.tenantId,
        livemode: true,
        domain: "blog.example.com",
        draftsOnly: true,
        lastSeenAt: null,
        connectorTokenHash: hashSecret(out.connector_token as string),
      });
      expect(JSON.stringify(row)).not.toContain(out.connector_token as string);
    },
  );
});
