import type { Prng } from "../seed/prng";
import type { SeedOwner } from "../seed/seed-strategist";

/** Days of activity the sandbox is seeded with, today (UTC) included: what the usage charts cover. */
export const SANDBOX_DAYS = 30;

/** One UTC day, ms. */
export const DAY_MS = 86_400_000;

/** An integration of the tenant that gets its own sample activity, with the test key its sample requests name. */
export interface SandboxIntegration {
  id: string;
  /** The integration's newest test key (`api_keys.id` and public `key_id`), or null when it has none. */
  testKey: { id: string; keyId: string } | null;
}

/** Ids of the seeded sandbox records that sample activity (events, requests, operations) refers to. */
export interface SandboxSamples {
  conversationIds: string[];
  /** Customer messages (what an AI reply answers), with their conversation. */
  customerMessages: { id: string; conversationId: string }[];
  /** AI messages (what an AI reply operation made). */
  aiMessageIds: string[];
  leads: { id: string; contactId: string | null; conversationId: string | null; version: number }[];
  articleIds: string[];
}

/** What the sample activity of a sandbox is made from (server/services/sandbox/seed-sandbox.ts). */
export interface SandboxContext {
  /** The tenant, and `livemode` false. */
  owner: SeedOwner & { livemode: false };
  /** The moment of seeding, ms since the epoch (server/lib/clock.ts): no sample happens after it. */
  now: number;
  r: Prng;
  integrations: SandboxIntegration[];
  /** Who started the sample top-ups: the tenant's first member (`staff_users.id`), or null when it has none. */
  staffUserId: string | null;
  samples: SandboxSamples;
}

/**
 * A moment of the day `daysAgo` UTC days before the context's `now` (0 = today), `fraction` (0 to 1) of
 * the way through it; today's moments fall between midnight and `now`, so nothing is dated in the future.
 */
export function momentOf(ctx: SandboxContext, daysAgo: number, fraction: number): Date {
  const today = Math.floor(ctx.now / DAY_MS) * DAY_MS;
  const start = today - daysAgo * DAY_MS;
  const length = daysAgo === 0 ? Math.max(1, ctx.now - today) : DAY_MS;
  return new Date(start + Math.floor(length * Math.min(0.999, Math.max(0, fraction))));
}

/** `YYYY-MM-DD` of a moment's UTC day. */
export const utcDayOf = (d: Date): string => d.toISOString().slice(0, 10);

/** The item of `xs` at `i`, wrapping around; `fallback` for an empty list. */
export function nth<T>(xs: readonly T[], i: number, fallback: T): T {
  return xs.length ? xs[((i % xs.length) + xs.length) % xs.length] : fallback;
}
