import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baseUrl, EnvError, loadEnv, setEnv } from "./env";
import { setTestEnv } from "./testing/test-db";

// Configuration is checked at start: a bad value stops the process with a message naming the variable,
// and production refuses to run without a real secret or with test-only settings.

const SECRET = "s".repeat(32);
const base = { NODE_ENV: "test", APP_SECRET: SECRET };
/** A production configuration that passes: a real secret, every cell's https origin, a real payment provider. */
const prod = {
  NODE_ENV: "production",
  APP_SECRET: SECRET,
  CELL_ORIGIN_RU: "https://api.example.ru",
  CELL_ORIGIN_EN: "https://api.example.com",
  CELL_ORIGIN_ID: "https://api.example.id",
  PAYMENT_PROVIDER: "yookassa",
  YOOKASSA_SHOP_ID: "123456",
  YOOKASSA_SECRET_KEY: "live_secretkey0123",
};
const yookassa = { PAYMENT_PROVIDER: "yookassa", YOOKASSA_SHOP_ID: "123456", YOOKASSA_SECRET_KEY: "test_secret_0123" };
const stripe = {
  PAYMENT_PROVIDER: "stripe",
  STRIPE_SECRET_KEY: "sk_test_abc123",
  STRIPE_WEBHOOK_SECRET: "whsec_abc123",
};

function envError(source: Record<string, string | undefined>): string {
  try {
    loadEnv(source);
  } catch (e) {
    expect(e).toBeInstanceOf(EnvError);
    return (e as Error).message;
  }
  throw new Error("expected an EnvError");
}

describe("AI seller settings", () => {
  it("defaults to the offline catalog model", () => {
    expect(loadEnv(base).ai).toMatchObject({ provider: "catalog", model: "catalog-1", maxRetries: 2 });
  });

  it("takes an OpenAI-compatible endpoint with its key and model", () => {
    const e = loadEnv({
      ...base,
      AI_PROVIDER: "openai",
      AI_BASE_URL: "http://127.0.0.1:9999/v1",
      AI_API_KEY: "k",
      AI_MODEL: "gpt-4o-mini",
      AI_TIMEOUT_MS: "5000",
    });
    expect(e.ai).toEqual({
      provider: "openai",
      baseUrl: "http://127.0.0.1:9999/v1",
      apiKey: "k",
      model: "gpt-4o-mini",
      timeoutMs: 5000,
      maxRetries: 2,
      writeTimeoutMs: 180_000,
    });
    expect(loadEnv({ ...base, AI_WRITE_TIMEOUT_MS: "90000" }).ai.writeTimeoutMs).toBe(90_000);
    expect(envError({ ...base, AI_WRITE_TIMEOUT_MS: "300000" })).toMatch(/AI_WRITE_TIMEOUT_MS/);
  });

  it("stops start on a bad provider or an incomplete openai setting, naming the variables", () => {
    expect(envError({ ...base, AI_PROVIDER: "gpt" })).toMatch(/AI_PROVIDER: must be catalog or openai/);
    const m = envError({ ...base, AI_PROVIDER: "openai", AI_MODEL: "m" });
    expect(m).toMatch(/AI_BASE_URL: required/);
    expect(m).toMatch(/AI_API_KEY: required/);
    expect(m).not.toMatch(/AI_MODEL/);
  });
});

describe("loadEnv", () => {
  it("gives the documented defaults", () => {
    const e = loadEnv(base);
    expect(e).toMatchObject({
      nodeEnv: "test",
      port: 3000,
      host: undefined,
      cell: "ru",
      trustProxy: "none",
      jobsDriver: "local",
      logLevel: "info",
      webhookAllowLoopback: false,
      databaseUrl: undefined,
      databasePoolSize: 4,
    });
    expect(e.cellOrigins).toEqual({
      ru: "http://localhost:3000",
      en: "http://localhost:3001",
      id: "http://localhost:3002",
    });
    expect(e.webhookSecretKey).toHaveLength(32);
  });

  it("parses numbers, cells, origins (trailing slashes dropped) and TRUST_PROXY", () => {
    const e = loadEnv({
      ...base,
      PORT: "8080",
      HOST: "0.0.0.0",
      CELL: "en",
      CELL_ORIGIN_EN: "https://api.example.com/",
      TRUST_PROXY: "2",
      DATABASE_URL: "postgresql://u@h:5432/d",
      DATABASE_POOL_SIZE: "12",
    });
    expect(e).toMatchObject({
      databasePoolSize: 12,
      port: 8080,
      host: "0.0.0.0",
      cell: "en",
      trustProxy: 2,
      databaseUrl: "postgresql://u@h:5432/d",
    });
    expect(e.cellOrigins).toEqual({
      ru: "http://localhost:3000",
      en: "https://api.example.com",
      id: "http://localhost:3002",
    });
  });

  it("treats empty strings as unset", () => {
    expect(loadEnv({ ...base, PORT: "", CELL: "" })).toMatchObject({ port: 3000, cell: "ru" });
  });

  it.each([
    ["PORT", "0"],
    ["PORT", "70000"],
    ["PORT", "abc"],
    ["HOST", "0.0.0.0 ; rm"],
    ["CELL", "us"],
    ["DATABASE_URL", "mysql://x@y/z"],
    ["DATABASE_POOL_SIZE", "0"],
    ["DATABASE_POOL_SIZE", "101"],
    ["DATABASE_POOL_SIZE", "2.5"],
    ["CELL_ORIGIN_RU", "api.example.ru"],
    ["CELL_ORIGIN_EN", "ftp://api.example.com"],
    ["APP_SECRET", "short"],
    ["TRUST_PROXY", "all"],
    ["TRUST_PROXY", "0"],
    ["TRUST_PROXY", "11"],
    ["REDIS_URL", "http://cache"],
    ["SMTP_URL", "http://user:secret@mail.example.com"],
    ["JOBS_DRIVER", "cron"],
    ["LOG_LEVEL", "loud"],
    ["WEBHOOK_SECRET_KEY", "too-short"],
    ["WEBHOOK_ALLOW_LOOPBACK", "yes"],
    ["WEBHOOK_ALLOW_PRIVATE_CIDRS", "10.0.0.0/8,intranet"],
    ["NODE_ENV", "staging"],
  ])("refuses %s=%j with a message naming the variable", (name, value) => {
    const message = envError({ ...base, [name]: value });
    expect(message).toMatch(/^Invalid environment:\n/);
    expect(message).toContain(`  ${name}: `);
  });

  it("names every bad variable at once and never echoes a secret value", () => {
    const message = envError({ ...base, PORT: "x", CELL: "us", APP_SECRET: "hunter2-secret" });
    expect(message).toContain("PORT:");
    expect(message).toContain("CELL:");
    expect(message).toContain("APP_SECRET: must be at least 32 characters");
    expect(message).not.toContain("hunter2-secret");
    const smtp = envError({ ...base, SMTP_URL: "http://user:hunter3-secret@mail.example.com" });
    expect(smtp).toContain("SMTP_URL: must be an smtp:// or smtps:// URL");
    expect(smtp).not.toContain("hunter3-secret");
  });

  it("requires APP_SECRET in production", () => {
    expect(envError({ NODE_ENV: "production" })).toBe(
      "Invalid environment:\n  APP_SECRET: required in production (32+ random characters)",
    );
    expect(loadEnv(prod).appSecret).toBe(SECRET);
  });

  it("requires every cell's origin, over https, in production (they reach integrators in links)", () => {
    expect(envError({ NODE_ENV: "production", APP_SECRET: SECRET })).toBe(
      [
        "Invalid environment:",
        "  CELL_ORIGIN_RU: required in production (the public https origin of the RU cell)",
        "  CELL_ORIGIN_EN: required in production (the public https origin of the EN cell)",
        "  CELL_ORIGIN_ID: required in production (the public https origin of the ID cell)",
      ].join("\n"),
    );
    expect(envError({ ...prod, CELL_ORIGIN_EN: "http://api.example.com" })).toBe(
      "Invalid environment:\n  CELL_ORIGIN_EN: must be an https origin in production",
    );
    expect(envError({ ...prod, CELL_ORIGIN_ID: undefined })).toBe(
      "Invalid environment:\n  CELL_ORIGIN_ID: required in production (the public https origin of the ID cell)",
    );
    const e = loadEnv({ ...prod, CELL: "en" });
    expect(e.cellOrigins).toEqual({
      ru: "https://api.example.ru",
      en: "https://api.example.com",
      id: "https://api.example.id",
    });
    // Outside production the localhost defaults remain, so `npm run demo` needs no configuration.
    expect(loadEnv(base).cellOrigins.ru).toBe("http://localhost:3000");
  });

  it("reads WEBHOOK_ALLOW_PRIVATE_CIDRS as networks, allowed in production, empty by default", () => {
    const e = loadEnv({ ...prod, WEBHOOK_ALLOW_PRIVATE_CIDRS: " 10.20.0.0/16 , fd00:1::/64" });
    expect(e.webhookAllowedPrivateNetworks.map(([ip, bits]) => `${ip.toString()}/${bits}`)).toEqual([
      "10.20.0.0/16",
      "fd00:1::/64",
    ]);
    expect(loadEnv(base).webhookAllowedPrivateNetworks).toEqual([]);
    expect(envError({ ...base, WEBHOOK_ALLOW_PRIVATE_CIDRS: "10.0.0.0/33" })).toContain(
      'WEBHOOK_ALLOW_PRIVATE_CIDRS: "10.0.0.0/33" is not a CIDR network',
    );
  });

  it("refuses WEBHOOK_ALLOW_LOOPBACK=true in production and allows it elsewhere", () => {
    expect(envError({ ...prod, WEBHOOK_ALLOW_LOOPBACK: "true" })).toBe(
      "Invalid environment:\n  WEBHOOK_ALLOW_LOOPBACK: a test setting, refused in production",
    );
    expect(loadEnv({ ...prod, WEBHOOK_ALLOW_LOOPBACK: "false" }).webhookAllowLoopback).toBe(false);
    expect(loadEnv({ ...base, WEBHOOK_ALLOW_LOOPBACK: "true" }).webhookAllowLoopback).toBe(true);
  });

  it("uses WEBHOOK_SECRET_KEY when given, else derives a key from APP_SECRET", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(loadEnv({ ...base, WEBHOOK_SECRET_KEY: key }).webhookSecretKey.equals(Buffer.alloc(32, 7))).toBe(true);
    const a = loadEnv(base).webhookSecretKey;
    expect(a.equals(loadEnv(base).webhookSecretKey)).toBe(true);
    expect(a.equals(loadEnv({ ...base, APP_SECRET: "t".repeat(32) }).webhookSecretKey)).toBe(false);
  });

  it("outside production without APP_SECRET makes one random secret beside the database and reuses it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "env-test-"));
    const source = { NODE_ENV: "development", PGLITE_DIR: path.join(dir, "pglite") };
    const first = loadEnv(source).appSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadEnv(source).appSecret).toBe(first);
    const file = path.join(dir, "app-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("payment provider settings", () => {
  it("defaults to the sandbox outside production", () => {
    expect(loadEnv(base).payment).toEqual({ provider: "sandbox" });
  });

  it("refuses the sandbox in production unless PAYMENT_SANDBOX=allow", () => {
    const { PAYMENT_PROVIDER: _p, YOOKASSA_SHOP_ID: _s, YOOKASSA_SECRET_KEY: _k, ...noProvider } = prod;
    expect(envError(noProvider)).toBe(
      "Invalid environment:\n  PAYMENT_PROVIDER: sandbox takes no real money and is refused in production; configure yookassa or stripe, or set PAYMENT_SANDBOX=allow for a demo",
    );
    expect(loadEnv({ ...noProvider, PAYMENT_SANDBOX: "allow" }).payment).toEqual({ provider: "sandbox" });
    expect(envError({ ...base, PAYMENT_SANDBOX: "yes" })).toContain("PAYMENT_SANDBOX: must be allow");
  });

  it("reads a whole YooKassa configuration, with the public API address by default", () => {
    expect(loadEnv({ ...base, ...yookassa }).payment).toEqual({
      provider: "yookassa",
      shopId: "123456",
      secretKey: "test_secret_0123",
      apiUrl: "https://api.yookassa.ru",
    });
    expect(loadEnv({ ...base, ...yookassa, YOOKASSA_API_URL: "http://127.0.0.1:9/" }).payment).toMatchObject({
      apiUrl: "http://127.0.0.1:9",
    });
  });

  it("reads a whole Stripe configuration", () => {
    expect(loadEnv({ ...base, ...stripe }).payment).toEqual({
      provider: "stripe",
      secretKey: "sk_test_abc123",
      webhookSecret: "whsec_abc123",
      apiUrl: undefined,
    });
  });

  it("stops on a half-set configuration, naming each missing variable", () => {
    expect(envError({ ...base, PAYMENT_PROVIDER: "yookassa", YOOKASSA_SHOP_ID: "123456" })).toBe(
      "Invalid environment:\n  YOOKASSA_SECRET_KEY: required with PAYMENT_PROVIDER=yookassa",
    );
    expect(envError({ ...base, PAYMENT_PROVIDER: "stripe" })).toBe(
      [
        "Invalid environment:",
        "  STRIPE_SECRET_KEY: required with PAYMENT_PROVIDER=stripe",
        "  STRIPE_WEBHOOK_SECRET: required with PAYMENT_PROVIDER=stripe",
      ].join("\n"),
    );
    expect(envError({ ...base, ...stripe, STRIPE_WEBHOOK_SECRET: "abc" })).toContain(
      "STRIPE_WEBHOOK_SECRET: must be the endpoint's signing secret (whsec_...)",
    );
  });

  it("stops on another provider's variables, which would be silently unused", () => {
    expect(envError({ ...base, YOOKASSA_SHOP_ID: "123456" })).toBe(
      "Invalid environment:\n  YOOKASSA_SHOP_ID: set, but PAYMENT_PROVIDER is sandbox (set PAYMENT_PROVIDER=yookassa or unset it)",
    );
    expect(envError({ ...base, ...stripe, YOOKASSA_API_URL: "https://api.yookassa.ru" })).toContain(
      "YOOKASSA_API_URL: set, but PAYMENT_PROVIDER is stripe",
    );
    expect(envError({ ...base, ...yookassa, PAYMENT_SANDBOX: "allow" })).toContain(
      "PAYMENT_SANDBOX: set, but PAYMENT_PROVIDER is yookassa",
    );
    expect(envError({ ...base, PAYMENT_PROVIDER: "paypal" })).toContain("PAYMENT_PROVIDER");
  });
});

describe("baseUrl", () => {
  it("is the cell origin plus /api/public/v1", () => {
    setEnv(loadEnv({ ...base, CELL_ORIGIN_RU: "https://api.example.ru", CELL_ORIGIN_ID: "https://api.example.id/" }));
    expect(baseUrl()).toBe("https://api.example.ru/api/public/v1");
    expect(baseUrl("id")).toBe("https://api.example.id/api/public/v1");
    setTestEnv();
  });
});
