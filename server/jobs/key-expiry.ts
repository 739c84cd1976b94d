import { and, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, integrations, tenants } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import { recordEvent } from "@/server/services/events/outbox";
import { afterCommit } from "@/server/services/events/work-notifier";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the tenant has the preview `test-mode`, i.e. whether its `test` keys live in the sandbox: the
 * mode of a key's notice is the mode the key works in (as authentication sets `actor.livemode`), so that it
 * reaches the subscriptions of that world (a test key without the preview works in live data).
 */
async function hasTestMode(db: Db, tenantId: string): Promise<boolean> {
  const [t] = await db
    .select({ on: sql<boolean>`'test-mode' = any(${tenants.previews})` })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return t?.on === true;
}

/** The notice thresholds of spec "Limits: Key expiry warnings": 30 and 7 days before `expires_at`. */
export const EXPIRY_NOTICE_DAYS = [30, 7] as const;

/** A threshold of {@link EXPIRY_NOTICE_DAYS}. */
export type ExpiryThreshold = (typeof EXPIRY_NOTICE_DAYS)[number];

/** One `api_key.expiring` event recorded by {@link runKeyExpiryNotices}. */
export interface ExpiryNotice {
  eventId: string;
  /** `api_keys.id` (internal), not the public `key_id`. */
  keyRowId: string;
  keyId: string;
  threshold: ExpiryThreshold;
  /** Whole days left, rounded up (a key expiring in 6 days 1 hour has 7). */
  daysLeft: number;
}

/** What one run did: the events it recorded (none when every pending notice was already sent). */
export interface KeyExpiryResult {
  notices: ExpiryNotice[];
}

/**
 * The daily `api_key.expiring` job (spec "Events" and "Limits: Key expiry warnings 30 and 7 days before").
 * Looks at every non-revoked, not yet expired key of an active integration of an active tenant whose
 * `expires_at` is at most 30 days after now ({@link nowMs}), and records one event per threshold crossed:
 * - 30 days > left > 7 days and no 30-day notice yet → the 30-day notice;
 * - left ≤ 7 days and no 7-day notice yet → the 7-day notice only, and the 30-day notice is marked as sent
 *   too: a key first seen at 5 days left (issued short, or the job was down) gets one event, the most
 *   urgent, never a stale "30 days" one afterwards.
 * Event data (thin, no secrets): `{key_id, integration_id, expires_at, days_left}`; `livemode` is true for
 * a `live` key. Each notice is a transaction of its own: a conditional UPDATE (`... WHERE expiry_warned_X_at
 * IS NULL RETURNING`) marks the key and the event with its webhook deliveries is recorded with it, so two
 * overlapping runs (or both drivers at once) send a threshold exactly once; the loser's UPDATE matches no row.
 * Deliveries are handed to the jobs driver after each commit.
 * @returns the notices recorded by this run.
 */
export async function runKeyExpiryNotices(db: Db): Promise<KeyExpiryResult> {
  const now = nowMs();
  const nowDate = new Date(now);
  const in30 = new Date(now + 30 * DAY_MS);
  const in7 = new Date(now + 7 * DAY_MS);
  const k = apiKeys;
  const candidates = await db
    .select({ id: k.id, expiresAt: k.expiresAt })
    .from(k)
    .innerJoin(integrations, eq(integrations.id, k.integrationId))
    .innerJoin(tenants, eq(tenants.id, k.tenantId))
    .where(
      and(
        isNull(k.revokedAt),
        gt(k.expiresAt, nowDate),
        lte(k.expiresAt, in30),
        eq(integrations.status, "active"),
        eq(tenants.status, "active"),
        or(isNull(k.expiryWarned30At), and(isNull(k.expiryWarned7At), lte(k.expiresAt, in7))),
      ),
    );

  const notices: ExpiryNotice[] = [];
  for (const c of candidates) {
    const threshold: ExpiryThreshold = c.expiresAt.getTime() <= in7.getTime() ? 7 : 30;
    const notice = await afterCommit(() => sendNotice(db, c.id, threshold, nowDate));
    if (notice) notices.push(notice);
  }
  return { notices };
}

/**
 * Marks one key's notice and records its event in one transaction; null when another run marked it
 * first, or the key was revoked, its integration suspended or its expiry moved since the candidate scan.
 */
async function sendNotice(
  db: Db,
  keyRowId: string,
  threshold: ExpiryThreshold,
  now: Date,
): Promise<ExpiryNotice | null> {
  const k = apiKeys;
  const pending = threshold === 7 ? isNull(k.expiryWarned7At) : isNull(k.expiryWarned30At);
  const window =
    threshold === 7
      ? lte(k.expiresAt, new Date(now.getTime() + 7 * DAY_MS))
      : lte(k.expiresAt, new Date(now.getTime() + 30 * DAY_MS));
  // The 7-day notice also stands for a 30-day one never sent (see runKeyExpiryNotices).
  const set =
    threshold === 7
      ? {
          expiryWarned7At: now,
          expiryWarned30At: sql`coalesce(${k.expiryWarned30At}, ${now.toISOString()}::timestamptz)`,
        }
      : { expiryWarned30At: now };
  return db.transaction(async (tx) => {
    const [key] = await tx
      .update(k)
      .set(set)
      .where(
        and(
          eq(k.id, keyRowId),
          pending,
          isNull(k.revokedAt),
          gt(k.expiresAt, now),
          window,
          sql`exists (select 1 from ${integrations} i join ${tenants} t on t.id = i.tenant_id where i.id = ${k.integrationId} and i.status = 'active' and t.status = 'active')`,
        ),
      )
      .returning({
        id: k.id,
        keyId: k.keyId,
        tenantId: k.tenantId,
        integrationId: k.integrationId,
        mode: k.mode,
        expiresAt: k.expiresAt,
      });
    if (!key) return null;
    const daysLeft = Math.ceil((key.expiresAt.getTime() - now.getTime()) / DAY_MS);
    const eventId = await recordEvent(tx, {
      tenantId: key.tenantId,
      type: "api_key.expiring",
      data: {
        key_id: key.keyId,
        integration_id: key.integrationId,
        expires_at: key.expiresAt.toISOString(),
        days_left: daysLeft,
      },
      livemode: key.mode === "live" || !(await hasTestMode(tx as unknown as Db, key.tenantId)),
    });
    return { eventId, keyRowId: key.id, keyId: key.keyId, threshold, daysLeft };
  });
}
