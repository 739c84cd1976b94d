import { randomBytes } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DirectoryInUseError } from "@/db/directory-lock";
import { openForScript } from "@/db/shared-embedded";
import { EnvError, env } from "@/server/env";
import { registerInngestNotifier } from "@/inngest/notifier";
import { ApiError } from "@/server/errors";
import { formatMinor } from "@/server/lib/money";
import { createIntegration, setIntegrationStatus } from "@/server/services/integrations/integrations";
import { rollKey } from "@/server/services/keys/key-roll";
import { issueKey, revokeKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import type { Right } from "@/server/schemas/scopes";
import { createOperatorInvitation } from "@/server/services/team/invitations";
import { createStaffMember } from "@/server/services/tenants/staff";
import { createPasswordResetLink } from "@/server/services/tenants/staff-password-reset";
import { createTenant, setLicense, setTenantStatus } from "@/server/services/tenants/tenants";
import { amount, bool, list, need, usageError, UsageError, type Command, type Opts } from "./admin-args";
import { CRM_COMMANDS } from "./admin-crm-commands";
import { SITE_COMMANDS } from "./admin-site-commands";
import { PAID_COMMANDS } from "./admin-paid-commands";
import { SANDBOX_COMMANDS } from "./admin-sandbox-commands";
import { STRATEGIST_COMMANDS } from "./admin-strategist-commands";
import { changeBalance, setWalletBlocked } from "@/server/services/wallet/wallet-ledger";

// Operator CLI: `npm run admin -- <command> [options] [--json]`. Every command calls the same services
// as the API and the console. With --json it prints exactly one JSON object on stdout.

const COMMANDS: Record<string, Command> = {
  "tenant:create": {
    usage: "--name N [--cell ru|en|id (default: this process's CELL)] [--main-domain shop.example.ru]",
    run: async (db, o) => {
      const t = await createTenant(db, {
        name: need(o, "name"),
        cell: (o.cell as "ru") ?? undefined,
        mainDomain: (o["main-domain"] as string) ?? null,
      });
      return { tenant_id: t.id, name: t.name, cell: t.cell, main_domain: t.mainDomain };
    },
  },
  "tenant:set-status": {
    usage: "--tenant ID --status active|inactive",
    run: async (db, o) => {
      const t = await setTenantStatus(db, need(o, "tenant"), need(o, "status"));
      return { tenant_id: t.id, status: t.status };
    },
  },
  "license:set": {
    usage: "--tenant ID [--api-access true|false] [--features chat,catalog,crm,articles,strategist,analytics]",
    run: async (db, o) => {
      const features = o.features === undefined ? undefined : (list(o.features) ?? []);
      const t = await setLicense(db, need(o, "tenant"), { apiAccess: bool(o["api-access"], "api-access"), features });
      return { tenant_id: t.id, api_access: t.apiAccess, features: t.features };
    },
  },
  "staff:create": {
    usage:
      "--tenant ID --email E --name N [--role owner|admin|...] [--rights manage_integrations,...] (prints a new password once)",
    run: async (db, o) => {
      // Console sign-up is closed: this is how a staff account comes to exist. An email that already has
      // an account is refused (never attached), see createStaffMember.
      const password = randomBytes(15).toString("base64url");
      const rights = o.rights === undefined ? undefined : ((list(o.rights) ?? []) as Right[]);
      const s = await createStaffMember(db, {
        tenantId: need(o, "tenant"),
        email: need(o, "email"),
        name: need(o, "name"),
        password,
        role: o.role as string | undefined,
        rights,
      });
      return {
        staff_user_id: s.staffUserId,
        tenant_id: o.tenant as string,
        email: (o.email as string).trim().toLowerCase(),
        password,
      };
    },
  },
  "staff:invite": {
    usage:
      "--tenant ID --email E --rights manage_integrations,manage_webhooks,topup_wallet,view_personal_data,manage_team (prints the invitation link; mailed too when SMTP_URL is set)",
    run: async (db, o) => {
      // The person opens the link, sets a password (or signs in with an existing account) and joins the
      // tenant with these rights; the link works once, for this email, for 7 days.
      const inv = await createOperatorInvitation(db, {
        tenantId: need(o, "tenant"),
        email: need(o, "email"),
        rights: o.rights === undefined ? [] : (list(o.rights) ?? []),
      });
      return { invitation_url: inv.url };
    },
  },
  "staff:reset-password": {
    usage: "--email E (prints a one-time link that sets a new password, valid for an hour)",
    run: async (db, o) => {
      // For a person who cannot receive the reset mail (no SMTP_URL, a lost mailbox): check who asks, then
      // hand the link over. Using it sets the password and ends every session of the account.
      const r = await createPasswordResetLink(db, { email: need(o, "email") });
      return { email: r.email, reset_url: r.resetUrl, expires_at: r.expiresAt.toISOString() };
    },
  },
  "integration:create": {
    usage:
      "--tenant ID --name N --scopes a,b [--role full|read_only|sales|content] [--pii-country CC --legal-basis T --ip-allowlist CIDR,...]",
    run: async (db, o) => {
      const i = await createIntegration(db, need(o, "tenant"), {
        name: need(o, "name"),
        scopes: list(need(o, "scopes")) ?? [],
        role: o.role as string | undefined,
        piiCountry: (o["pii-country"] as string | undefined)?.toUpperCase() ?? null,
        legalBasis: (o["legal-basis"] as string | undefined) ?? null,
        ipAllowlist: list(o["ip-allowlist"]) ?? null,
      });
      return {
        integration_id: i.id,
        tenant_id: i.tenantId,
        channel_id: i.channelId,
        status: i.status,
        role: i.role,
        scopes: i.scopes,
      };
    },
  },
  "integration:set-status": {
    usage: "--integration ID --status active|suspended|revoked",
    run: async (db, o) => {
      const i = await setIntegrationStatus(db, need(o, "integration"), need(o, "status"));
      return { integration_id: i.id, status: i.status };
    },
  },
  "key:issue": {
    usage: "--integration ID [--name N] [--mode live|test] [--expires-at ISO] [--ip-allowlist CIDR,...]",
    run: async (db, o) => {
      const expires = o["expires-at"] as string | undefined;
      const k = await issueKey(db, {
        integrationId: need(o, "integration"),
        name: (o.name as string | undefined) ?? null,
        mode: o.mode as string | undefined,
        expiresAt: expires ? new Date(expires) : null,
        ipAllowlist: list(o["ip-allowlist"]) ?? null,
      });
      return {
        key: k.key,
        key_id: k.keyId,
        name: k.name,
        integration_id: k.integrationId,
        tenant_id: k.tenantId,
        mode: k.mode,
        expires_at: k.expiresAt.toISOString(),
        ip_allowlist: k.ipAllowlist,
      };
    },
  },
  "key:roll": {
    usage:
      "--key-id kid_... --delay now|1h|24h|7d (a new key with the same settings; the old one expires after the delay)",
    run: async (db, o) => {
      const r = await rollKey(db, { keyId: need(o, "key-id"), delay: need(o, "delay") });
      return {
        key: r.key.key,
        key_id: r.key.keyId,
        name: r.key.name,
        integration_id: r.key.integrationId,
        mode: r.key.mode,
        expires_at: r.key.expiresAt.toISOString(),
        old_key: { key_id: r.old.keyId, expires_at: r.old.expiresAt.toISOString() },
      };
    },
  },
  "key:revoke": {
    usage: "--key-id kid_...",
    run: async (db, o) => {
      const r = await revokeKey(db, need(o, "key-id"));
      return { key_id: r.keyId, revoked_at: r.revokedAt.toISOString() };
    },
  },
  "limits:set": {
    usage: "(--tenant ID | --key-id ID) [--read N] [--write N] [--paid N] [--paid-concurrency N]",
    run: async (db, o) => {
      if ((o.tenant === undefined) === (o["key-id"] === undefined))
        throw usageError("give exactly one of --tenant and --key-id");
      const int = (name: string) => {
        const v = o[name];
        if (v === undefined) return undefined;
        if (typeof v !== "string" || !/^\d+$/.test(v)) throw usageError(`--${name} must be a whole number`);
        return Number(v);
      };
      const target = o.tenant !== undefined ? { tenantId: need(o, "tenant") } : { keyId: need(o, "key-id") };
      const limits = await setLimitOverride(db, target, {
        readPerMin: int("read"),
        writePerMin: int("write"),
        paidPerMin: int("paid"),
        paidConcurrency: int("paid-concurrency"),
      });
      return { ...("tenantId" in target ? { tenant_id: target.tenantId } : { key_id: target.keyId }), limits };
    },
  },
  "wallet:credit": {
    usage: "--tenant ID --amount 12.34",
    run: async (db, o) =>
      walletOut(
        await changeBalance(db, {
          tenantId: need(o, "tenant"),
          amountMinor: amount(o),
          kind: "credit",
          actor: "operator",
        }),
      ),
  },
  "wallet:debit": {
    usage: "--tenant ID --amount 12.34",
    run: async (db, o) =>
      walletOut(
        await changeBalance(db, {
          tenantId: need(o, "tenant"),
          amountMinor: -amount(o),
          kind: "debit",
          actor: "operator",
        }),
      ),
  },
  "wallet:block": {
    usage: "--tenant ID",
    run: async (db, o) => walletOut(await setWalletBlocked(db, { tenantId: need(o, "tenant") }, true, "operator")),
  },
  "wallet:unblock": {
    usage: "--tenant ID",
    run: async (db, o) => walletOut(await setWalletBlocked(db, { tenantId: need(o, "tenant") }, false, "operator")),
  },
  ...PAID_COMMANDS,
  ...SANDBOX_COMMANDS,
  ...CRM_COMMANDS,
  ...SITE_COMMANDS,
  ...STRATEGIST_COMMANDS,
};

function walletOut(w: { tenantId: string; balanceMinor: bigint; blocked: boolean; ledgerId: string }) {
  return {
    tenant_id: w.tenantId,
    balance: { amount: formatMinor(w.balanceMinor), currency: "RUB" },
    blocked: w.blocked,
    ledger_entry_id: w.ledgerId,
  };
}

function help(): string {
  return [
    "Usage: npm run admin -- <command> [options] [--json]",
    "",
    ...Object.entries(COMMANDS).map(([n, c]) => `  ${n} ${c.usage}`),
  ].join("\n");
}

/**
 * An unexpected error's message with its causes' (drizzle's "Failed query: ..." wraps the database's own
 * error, which says what went wrong), joined by ": ".
 */
function failureText(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined; e && parts.length < 5; e = e.cause as typeof e)
    if (e.message) parts.push(e.message);
  return parts.join(": ") || String(err);
}

/** Where the CLI writes: `out` is stdout (the answer), `err` is stderr (messages for the operator). */
export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
}

const CONSOLE_IO: AdminIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

/**
 * Runs one operator command, as `npm run admin -- <args>` does: parses `args` (the command's name, its
 * options, `--json`), opens the database for a script (PostgreSQL, the running app's shared PGlite socket,
 * or the PGlite directory; db/shared-embedded.ts), runs the command and closes the database.
 * Never throws: errors are written to `io` (one `{ "error": ... }` object on `out` with --json).
 * @returns the process exit code: 0 done, 1 refused or failed, 2 usage error
 */
export async function runAdmin(args: string[], io: AdminIo = CONSOLE_IO): Promise<number> {
  const [name, ...rest] = args;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(name && name !== "help" && name !== "--help" ? `Unknown command "${name}".\n\n${help()}` : help());
    return name === "help" || name === "--help" ? 0 : 2;
  }
  let json = false;
  try {
    const names = [
      "name",
      "cell",
      "main-domain",
      "tenant",
      "status",
      "api-access",
      "features",
      "scopes",
      "role",
      "pii-country",
      "legal-basis",
      "ip-allowlist",
      "integration",
      "mode",
      "expires-at",
      "key-id",
      "delay",
      "amount",
      "read",
      "write",
      "paid",
      "paid-concurrency",
      "email",
      "rights",
      "feature",
      "enabled",
      "daily-limit",
      "max-operation-cost",
      "ai-daily-limit",
      "ai-enabled",
      "domain",
      "type",
      "date",
    ];
    const options = Object.fromEntries([
      ...names.map((n) => [n, { type: "string" as const }]),
      ["json", { type: "boolean" as const }],
      ["drafts-only", { type: "boolean" as const }],
      ["test", { type: "boolean" as const }],
    ]);
    let values: Opts;
    try {
      values = parseArgs({ args: rest, strict: true, options }).values as Opts;
    } catch (err) {
      throw usageError((err as Error).message);
    }
    json = values.json === true;
    const e = env();
    // With Inngest, a credit that resumes exchange is announced to it (the local driver polls instead).
    if (e.jobsDriver === "inngest") registerInngestNotifier();
    const d = await openForScript({ url: e.databaseUrl, pgliteDir: e.pgliteDir });
    try {
      const out = await command.run(d.db, values as Opts);
      io.out(
        json
          ? JSON.stringify(out)
          : Object.entries(out)
              .map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
              .join("\n"),
      );
      if (!json && "key" in out) io.err("\nThe key is shown once; store it now.");
      if (!json && "password" in out) io.err("\nThe password is shown once; hand it over safely.");
      if (!json && "reset_url" in out)
        io.err("\nThe link sets the account's password once; hand it only to the account's owner.");
      return 0;
    } finally {
      await d.close();
    }
  } catch (err) {
    const problem =
      err instanceof ApiError
        ? { code: err.code, detail: err.message, errors: err.extras.errors }
        : err instanceof UsageError
          ? { code: "usage", detail: `${err.message}\n  ${name} ${command.usage}` }
          : err instanceof EnvError
            ? { code: "environment", detail: err.message }
            : err instanceof DirectoryInUseError
              ? { code: "database_in_use", detail: err.message }
              : { code: "internal_error", detail: failureText(err) };
    if (json) io.out(JSON.stringify({ error: problem }));
    else {
      io.err(`Error (${problem.code}): ${problem.detail}`);
      for (const f of (problem as { errors?: { field: string; message: string }[] }).errors ?? [])
        io.err(`  ${f.field}: ${f.message}`);
    }
    return problem.code === "usage" ? 2 : 1;
  }
}

// Run as a program (`tsx scripts/admin.ts`), not when a test imports runAdmin.
if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url)
  void runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
