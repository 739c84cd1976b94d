import type { Db } from "@/db/client";
import { ApiError } from "@/server/errors";
import { parseAmount } from "@/server/lib/money";

// Option helpers of the operator CLI (scripts/admin.ts): parsed options, the command shape, and the
// checks that turn a bad option into a usage error (exit code 2) or a not-found.

/** Options as `node:util` parseArgs gives them. */
export type Opts = Record<string, string | boolean | undefined>;
/** One CLI command: its usage line and what it runs; `run` answers the JSON object printed with --json. */
export type Command = { usage: string; run: (db: Db, o: Opts) => Promise<Record<string, unknown>> };

/** A bad command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}
export const usageError = (m: string) => new UsageError(m);

/** `a,b,c` → ["a", "b", "c"]; undefined for an absent or empty option. */
export const list = (v: unknown) =>
  typeof v === "string" && v.trim()
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** `true` / `false` → boolean; undefined when absent. @throws UsageError otherwise. */
export const bool = (v: unknown, name: string) => {
  if (v === undefined) return undefined;
  if (v === "true") return true;
  if (v === "false") return false;
  throw usageError(`--${name} must be true or false`);
};
const ID_OPTIONS: Record<string, string> = { tenant: "Tenant", integration: "Integration" };
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A required option. @throws UsageError when absent; ApiError `not_found` for an id option that is no UUID. */
export function need(o: Opts, name: string): string {
  const v = o[name];
  if (typeof v !== "string" || !v) throw usageError(`--${name} is required`);
  // Ids are UUIDs; anything else cannot exist, so it reads as not found rather than a database error.
  if (ID_OPTIONS[name] && !UUID_RE.test(v)) throw new ApiError("not_found", `${ID_OPTIONS[name]} ${v} was not found.`);
  return v;
}

/** An amount option (`12.34`, RUB) in minor units; undefined when absent. @throws UsageError for a bad amount. */
export function amountOption(o: Opts, name: string): bigint | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  try {
    return parseAmount(String(v));
  } catch (err) {
    if (err instanceof RangeError) throw usageError(`--${name}: ${err.message}`);
    throw err;
  }
}

/** The required `--amount`. */
export function amount(o: Opts): bigint {
  need(o, "amount");
  return amountOption(o, "amount")!;
}
