import ipaddr from "ipaddr.js";
import { hkdfSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/** The three independent cells of the platform (spec "What the service does", fact 1). */
export const CELLS = ["ru", "en", "id"] as const;
export type Cell = (typeof CELLS)[number];

const origin = z
  .url({ protocol: /^https?$/, message: "must be an absolute http(s) origin such as https://api.example.ru" })
  .transform((u) => u.replace(/\/+$/, ""));

/**
 * PostgreSQL connections of one app process (`DATABASE_POOL_SIZE`; postgres.js's `max`). Few on purpose:
 * postgres.js pipelines the queries of concurrent requests on a busy connection and sends those of one
 * event-loop turn in one write, so 16 concurrent API requests on 4 connections cost about 4 socket writes
 * and 4 woken backends a turn instead of 16; each write and wake-up is a system call that took 30-110 µs
 * of the app's core on the bench's VM. `npm run bench -- --compare` against 10 connections (the earlier
 * default): `/cards?limit=10` 0.61 → 0.69 of `GET /api/health`, app CPU per request lower on every route
 * compared (docs/benchmark.md, bench/HISTORY.md). A transaction holds
 * its connection until it ends, so a process's concurrent transactions beyond this number wait for one.
 */
export const DEFAULT_DATABASE_POOL_SIZE = 4;

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:%_-]+$/, "must be an address or host name to listen on, such as 0.0.0.0, :: or 10.0.0.5")
    .optional(),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, message: "must be a postgres:// URL" }).optional(),
  PGLITE_DIR: z.string().min(1).default(".data/pglite"),
  DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1, "must be a whole number from 1 to 100")
    .max(100, "must be a whole number from 1 to 100")
    .default(DEFAULT_DATABASE_POOL_SIZE),
  CELL: z.enum(CELLS).default("ru"),
  CELL_ORIGIN_RU: origin.optional(),
  CELL_ORIGIN_EN: origin.optional(),
  CELL_ORIGIN_ID: origin.optional(),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  TRUST_PROXY: z.union([z.literal("none"), z.coerce.number().int().min(1).max(10)]).default("none"),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      message: "must be an smtp:// or smtps:// URL such as smtps://user:pass@mail.example.com",
    })
    .optional(),
  MAIL_FROM: z.string().min(3).optional(),
  JOBS_DRIVER: z.enum(["local", "inngest"]).default("local"),
  WEB_CONCURRENCY: z.coerce.number().int().min(1, "must be a whole number from 1 to 64").max(64).default(1),
  CONNECTOR_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(2, "must be a whole number of seconds from 2 to 3600")
    .max(3600, "must be a whole number of seconds from 2 to 3600")
    .default(60),
  REQUEST_LOG: z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
  AI_PROVIDER: z.enum(["catalog", "openai"], { message: "must be catalog or openai" }).default("catalog"),
  AI_BASE_URL: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL such as https://api.openai.com/v1" })
    .optional(),
  AI_API_KEY: z.string().min(1).optional(),
  AI_MODEL: z.string().min(1).max(200).optional(),
  AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  AI_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  AI_WRITE_TIMEOUT_MS: z.coerce.number().int().min(100).max(280_000).default(180_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  PGLITE_SOCKET_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  WEBHOOK_SECRET_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "must be 32 random bytes in base64 (openssl rand -base64 32)")
    .optional(),
  WEBHOOK_ALLOW_LOOPBACK: z.enum(["true", "false"], { message: "must be true or false" }).default("false"),
  WEBHOOK_ALLOW_PRIVATE_CIDRS: z
    .string()
    .transform((v, ctx) => {
      const out: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
      for (const part of v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean)) {
        try {
          out.push(ipaddr.parseCIDR(part));
        } catch {
          ctx.addIssue({ code: "custom", message: `"${part}" is not a CIDR network (e.g. 10.20.0.0/16, fd00:1::/64)` });
          return z.NEVER;
        }
      }
      return out;
    })
    .optional(),
  PAYMENT_PROVIDER: z.enum(["sandbox", "yookassa", "stripe"]).default("sandbox"),
  PAYMENT_SANDBOX: z.enum(["allow"], { message: "must be allow (or unset)" }).optional(),
  YOOKASSA_SHOP_ID: z
    .string()
    .regex(/^[0-9A-Za-z_-]{1,64}$/, "must be the shop id from the YooKassa account")
    .optional(),
  YOOKASSA_SECRET_KEY: z.string().min(8, "must be the secret key from the YooKassa account").optional(),
  YOOKASSA_API_URL: origin.optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(live|test)_\w+$/, "must be a Stripe secret key (sk_live_..., sk_test_...)")
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "must be the endpoint's signing secret (whsec_...)")
    .optional(),
  STRIPE_API_URL: origin.optional(),
});

/**
 * Where top-ups are paid (`PAYMENT_PROVIDER`, DESIGN "Money"): the built-in `sandbox` (test payments,
 * refused in production unless `PAYMENT_SANDBOX=allow`), YooKassa or Stripe with their credentials.
 */
export type PaymentConfig =
  | { provider: "sandbox" }
  | { provider: "yookassa"; shopId: string; secretKey: string; apiUrl: string }
  | { provider: "stripe"; secretKey: string; webhookSecret: string; apiUrl: string | undefined };

/** The validated configuration of this process. Secrets in it never reach logs. */
export interface Env {
  nodeEnv: "development" | "production" | "test";
  port: number;
  /**
   * Where the HTTP server listens (`HOST`): unset = loopback only (127.0.0.1 and ::1), so a demo or a
   * development server is not reachable from the network; `0.0.0.0` or `::` for every interface (a
   * container or a host behind a load balancer), or one address.
   */
  host: string | undefined;
  databaseUrl: string | undefined;
  pgliteDir: string;
  /** PostgreSQL connections of this process (`DATABASE_POOL_SIZE`, see {@link DEFAULT_DATABASE_POOL_SIZE}). */
  databasePoolSize: number;
  cell: Cell;
  /** Origin (scheme, host, port; no trailing slash) of every cell, this one included. */
  cellOrigins: Record<Cell, string>;
  appSecret: string;
  /** `none`: the peer address of the TCP connection is the caller; N: the Nth entry from the right of X-Forwarded-For. */
  trustProxy: "none" | number;
  redisUrl: string | undefined;
  /**
   * Outgoing mail (team invitations, password reset): nodemailer's `smtp(s)://user:pass@host:port` URL;
   * unset = no mail is sent, and in production console invitations are refused (they reach the invited
   * person only by mail; server/services/team/invitations.ts `invitationDelivery`).
   */
  smtpUrl: string | undefined;
  /** Sender address of outgoing mail (`MAIL_FROM`, default `Platform console <no-reply@localhost>`). */
  mailFrom: string;
  jobsDriver: "local" | "inngest";
  /** App processes `npm start` runs (`WEB_CONCURRENCY`, default 1); 1 on the embedded database (server/lib/cluster.ts). */
  webConcurrency: number;
  /** Lease of a site connector's claimed job, seconds (`CONNECTOR_LEASE_SECONDS`, default 60; issue 71). */
  connectorLeaseSeconds: number;
  /**
   * The API request log's writer (server/services/request-log/writer.ts); `REQUEST_LOG=off` exists so the
   * bench can measure what the log costs a request. Keep it on: the console's request log and keys' last
   * use come from it.
   */
  requestLog: boolean;
  /**
   * The AI seller's language model (server/services/ai-seller): `catalog` (offline, deterministic, the
   * default) or `openai` (any OpenAI-compatible Chat Completions endpoint at `baseUrl` with `apiKey`).
   */
  ai: {
    provider: "catalog" | "openai";
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string;
    timeoutMs: number;
    maxRetries: number;
    /** Per-call timeout of the article writer (`AI_WRITE_TIMEOUT_MS`): an article takes far longer than a reply. */
    writeTimeoutMs: number;
  };
  logLevel: string;
  /** Port of the PGlite socket that lets `npm run admin` share the embedded database (0 = any free port). */
  pgliteSocketPort: number;
  /** 32-byte AES-256-GCM key that encrypts webhook signing secrets at rest; derived from `appSecret` when unset. */
  webhookSecretKey: Buffer;
  /**
   * Test setting only: a loopback host (`localhost`, `127.0.0.1`, `[::1]`) may be given as an IP literal
   * and on any port, so tests can run local receivers; the loopback addresses themselves must still be
   * allowed with `WEBHOOK_ALLOW_PRIVATE_CIDRS`. Refused in production. Never set in a deployment.
   */
  webhookAllowLoopback: boolean;
  /**
   * `WEBHOOK_ALLOW_PRIVATE_CIDRS` (comma-separated CIDR networks, off by default): non-public networks an
   * operator lets webhook deliveries reach, e.g. a CRM inside the company network. Addresses inside them
   * pass the SSRF address rule at creation and at every connection; https, port 443 and a host name are
   * still required (only the test setting `WEBHOOK_ALLOW_LOOPBACK` relaxes those for loopback hosts).
   */
  webhookAllowedPrivateNetworks: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  /** The payment provider of wallet top-ups and its settings. */
  payment: PaymentConfig;
}

/** Raised at start when a variable has a bad value; the message names each variable and its problem. */
export class EnvError extends Error {}

/**
 * Parses and validates configuration from `source` (default `process.env`).
 * @throws EnvError naming every bad variable.
 */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const local = (p: number) => `http://localhost:${p}`;
  const defaults: Record<Cell, string> = { ru: local(3000), en: local(3001), id: local(3002) };
  defaults[e.CELL] = local(e.PORT);
  if (e.NODE_ENV === "production" && !e.APP_SECRET) {
    throw new EnvError("Invalid environment:\n  APP_SECRET: required in production (32+ random characters)");
  }
  if (e.NODE_ENV === "production" && e.WEBHOOK_ALLOW_LOOPBACK === "true") {
    throw new EnvError("Invalid environment:\n  WEBHOOK_ALLOW_LOOPBACK: a test setting, refused in production");
  }
  if (e.NODE_ENV === "production") {
    // Every cell's origin reaches integrators: `base_url` of /me, `correct_base_url` of `wrong_cell`,
    // `topup_url` and the `type` link of every problem. A localhost default or a plain-http origin there
    // would send them somewhere wrong or insecure, so production names all three, over https.
    const configured: Record<Cell, string | undefined> = {
      ru: e.CELL_ORIGIN_RU,
      en: e.CELL_ORIGIN_EN,
      id: e.CELL_ORIGIN_ID,
    };
    const bad = CELLS.flatMap((c) => {
      const name = `CELL_ORIGIN_${c.toUpperCase()}`;
      const value = configured[c];
      if (!value) return [`  ${name}: required in production (the public https origin of the ${c.toUpperCase()} cell)`];
      if (!value.startsWith("https://")) return [`  ${name}: must be an https origin in production`];
      return [];
    });
    if (bad.length) throw new EnvError(`Invalid environment:\n${bad.join("\n")}`);
  }
  const payment = paymentConfig(e);
  if (e.AI_PROVIDER === "openai") {
    const bad = [
      ...(e.AI_BASE_URL ? [] : ["  AI_BASE_URL: required with AI_PROVIDER=openai (e.g. https://api.openai.com/v1)"]),
      ...(e.AI_API_KEY ? [] : ["  AI_API_KEY: required with AI_PROVIDER=openai"]),
      ...(e.AI_MODEL ? [] : ["  AI_MODEL: required with AI_PROVIDER=openai (e.g. gpt-4o-mini)"]),
    ];
    if (bad.length) throw new EnvError(`Invalid environment:\n${bad.join("\n")}`);
  }
  const appSecret = e.APP_SECRET ?? localSecret(path.dirname(e.PGLITE_DIR));
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    pgliteDir: e.PGLITE_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    cell: e.CELL,
    cellOrigins: {
      ru: e.CELL_ORIGIN_RU ?? defaults.ru,
      en: e.CELL_ORIGIN_EN ?? defaults.en,
      id: e.CELL_ORIGIN_ID ?? defaults.id,
    },
    appSecret,
    trustProxy: e.TRUST_PROXY,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? "Platform console <no-reply@localhost>",
    jobsDriver: e.JOBS_DRIVER,
    webConcurrency: e.WEB_CONCURRENCY,
    connectorLeaseSeconds: e.CONNECTOR_LEASE_SECONDS,
    requestLog: e.REQUEST_LOG === "on",
    ai: {
      provider: e.AI_PROVIDER,
      baseUrl: e.AI_BASE_URL,
      apiKey: e.AI_API_KEY,
      model: e.AI_PROVIDER === "openai" ? e.AI_MODEL! : "catalog-1",
      timeoutMs: e.AI_TIMEOUT_MS,
      maxRetries: e.AI_MAX_RETRIES,
      writeTimeoutMs: e.AI_WRITE_TIMEOUT_MS,
    },
    logLevel: e.LOG_LEVEL,
    pgliteSocketPort: e.PGLITE_SOCKET_PORT,
    webhookSecretKey: e.WEBHOOK_SECRET_KEY
      ? Buffer.from(e.WEBHOOK_SECRET_KEY, "base64")
      : Buffer.from(hkdfSync("sha256", appSecret, "", "webhook-secret-key", 32)),
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK === "true",
    webhookAllowedPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_CIDRS ?? [],
    payment,
  };
}

/**
 * The payment settings, whole or not at all: the chosen provider's variables must all be set and no
 * other provider's may be (a half-set configuration is a mistake to stop on, not to guess around).
 * @throws EnvError naming each missing or stray variable.
 */
function paymentConfig(e: z.infer<typeof EnvSchema>): PaymentConfig {
  const vars = {
    yookassa: { YOOKASSA_SHOP_ID: e.YOOKASSA_SHOP_ID, YOOKASSA_SECRET_KEY: e.YOOKASSA_SECRET_KEY },
    stripe: { STRIPE_SECRET_KEY: e.STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: e.STRIPE_WEBHOOK_SECRET },
  };
  const optional = { yookassa: { YOOKASSA_API_URL: e.YOOKASSA_API_URL }, stripe: { STRIPE_API_URL: e.STRIPE_API_URL } };
  const p = e.PAYMENT_PROVIDER;
  const bad: string[] = [];
  for (const provider of ["yookassa", "stripe"] as const) {
    const all = { ...vars[provider], ...optional[provider] };
    for (const [name, value] of Object.entries(all)) {
      if (provider === p && name in vars[provider] && !value)
        bad.push(`  ${name}: required with PAYMENT_PROVIDER=${p}`);
      if (provider !== p && value)
        bad.push(`  ${name}: set, but PAYMENT_PROVIDER is ${p} (set PAYMENT_PROVIDER=${provider} or unset it)`);
    }
  }
  if (p !== "sandbox" && e.PAYMENT_SANDBOX) bad.push(`  PAYMENT_SANDBOX: set, but PAYMENT_PROVIDER is ${p}`);
  if (p === "sandbox" && e.NODE_ENV === "production" && e.PAYMENT_SANDBOX !== "allow")
    bad.push(
      "  PAYMENT_PROVIDER: sandbox takes no real money and is refused in production; configure yookassa or stripe, or set PAYMENT_SANDBOX=allow for a demo",
    );
  if (bad.length) throw new EnvError(`Invalid environment:\n${bad.join("\n")}`);
  if (p === "yookassa")
    return {
      provider: p,
      shopId: e.YOOKASSA_SHOP_ID!,
      secretKey: e.YOOKASSA_SECRET_KEY!,
      apiUrl: e.YOOKASSA_API_URL ?? "https://api.yookassa.ru",
    };
  if (p === "stripe")
    return {
      provider: p,
      secretKey: e.STRIPE_SECRET_KEY!,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
      apiUrl: e.STRIPE_API_URL,
    };
  return { provider: "sandbox" };
}

/** Outside production a random secret is made once and kept beside the embedded database, never committed. */
function localSecret(dir: string): string {
  const file = path.join(dir, "app-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

const KEY = Symbol.for("platform.env");
type Holder = { [KEY]?: Env };

/** The process-wide configuration, parsed on first use. */
export function env(): Env {
  const g = globalThis as Holder;
  return (g[KEY] ??= loadEnv());
}

/** Replaces the configuration (tests, and scripts that pick a cell). */
export function setEnv(next: Env): void {
  (globalThis as Holder)[KEY] = next;
}

/** `{cell_origin}/api/public/v1` of a cell (spec "Versioning" 1). */
export function baseUrl(cell: Cell = env().cell): string {
  return `${env().cellOrigins[cell]}/api/public/v1`;
}
