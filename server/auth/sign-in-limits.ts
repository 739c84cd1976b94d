import { addressKey } from "@/server/lib/client-ip";
import { createHmac } from "node:crypto";
import { env } from "@/server/env";
import { nowMs } from "@/server/lib/clock";
import { limitStore } from "@/server/services/limits/rate-limiter";
import type { BucketLimit } from "@/server/services/limits/limit-store";
import { previousWeight, retryAfterSeconds } from "@/server/services/limits/sliding-window";

/**
 * Console sign-in attempts allowed per sliding minute (issue 23 item 3), counted in the app's shared
 * limit store (PostgreSQL, or Redis with `REDIS_URL`), so every app process sees the same counts:
 * - `perAddress`: from one client address, whatever the accounts (password spraying);
 * - `perAccountFromAddress`: on one account from one address (one attacker guessing one password);
 * - `perAccount`: on one account from all addresses together (a distributed guess).
 * One attacker is stopped by the first two long before the third, so they cannot lock the real user,
 * who signs in from another address, out of their account; only several addresses together can, and
 * only for as long as they keep going (the window slides: a minute after the last attempt it is open).
 */
export const SIGN_IN_LIMITS: SignInLimits = { perAddress: 20, perAccountFromAddress: 10, perAccount: 30 };

/** Sign-in attempts allowed per sliding minute, by bucket. */
export interface SignInLimits {
  perAddress: number;
  perAccountFromAddress: number;
  perAccount: number;
}

const KEY = Symbol.for("platform.signInLimits");
type Holder = { [KEY]?: SignInLimits };

/** The limits in force: {@link SIGN_IN_LIMITS} unless a test replaced them. */
export function signInLimits(): SignInLimits {
  return (globalThis as Holder)[KEY] ?? SIGN_IN_LIMITS;
}

/**
 * Tests only: smaller limits, so a test reaches them with a few password checks (each costs a scrypt
 * hash); `undefined` restores {@link SIGN_IN_LIMITS}.
 */
export function setSignInLimits(next: SignInLimits | undefined): void {
  (globalThis as Holder)[KEY] = next;
}

/** An attempt counted, or refused with the seconds to wait and which limit was full. */
export type SignInAttempt = { allowed: true } | { allowed: false; retryAfterS: number; limit: "address" | "account" };

/**
 * The bucket key of an account: a keyed hash of the lower-cased email, so the limit store (and its
 * logs) never hold an address in clear and a guessed email cannot be checked against it offline.
 */
export function accountKey(email: string): string {
  return createHmac("sha256", env().appSecret)
    .update(`console-sign-in:${email.trim().toLowerCase()}`)
    .digest("hex")
    .slice(0, 32);
}

/**
 * Counts one sign-in attempt in the buckets of its address and account, all or none (a refused
 * attempt counts nowhere). An unknown address (no peer stamp, e.g. Next.js served without our server)
 * skips the address buckets rather than putting every caller in one; the account bucket still holds.
 * @throws when the limit store cannot be reached (the caller refuses the attempt: fail closed).
 */
export async function takeSignInAttempt(input: {
  address: string | null;
  email: string | null;
}): Promise<SignInAttempt> {
  const now = nowMs();
  const limits = signInLimits();
  const addr = input.address ? addressKey(input.address) : null;
  const acct = input.email ? accountKey(input.email) : null;
  const buckets: BucketLimit[] = [];
  if (addr) buckets.push({ bucket: `console-sign-in:addr:${addr}`, limit: limits.perAddress });
  if (acct) buckets.push({ bucket: `console-sign-in:acct:${acct}`, limit: limits.perAccount });
  if (acct && addr)
    buckets.push({ bucket: `console-sign-in:acct-addr:${acct}:${addr}`, limit: limits.perAccountFromAddress });
  if (!buckets.length) return { allowed: true };
  const result = await limitStore().take(buckets, now);
  if (result.allowed) return { allowed: true };
  const weight = previousWeight(now);
  const full = result.counts.filter((c) => c.previous * weight + c.current + 1 > c.limit);
  const retryAfterS = Math.max(1, ...full.map((c) => retryAfterSeconds(c, now)));
  return { allowed: false, retryAfterS, limit: full.some((c) => c.bucket.includes(":acct")) ? "account" : "address" };
}
