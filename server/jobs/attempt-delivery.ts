import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, tenants, wallets, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { readWallet } from "@/server/services/wallet/wallet-state";
import {
  attemptLogEntry,
  recordOutcomeWithAttempt,
  type AttemptLogEntry,
} from "@/server/services/webhooks/attempt-log";
import { JOURNAL_RETENTION_MS } from "@/server/services/webhooks/journal";
import { personalDataForDelivery, recordDeliveryDisclosure } from "@/server/services/webhooks/personal-data";
import { deliveryClient, type DeliveryClient, type DeliveryResult } from "@/server/webhook-transport/delivery-client";
import { buildEnvelope, EVENT_API_VERSION, serializeEnvelope } from "@/server/webhook-transport/envelope";
import { openSecret } from "@/server/webhook-transport/secret-box";
import { DELIVERY_HEADERS, signatureHeader } from "@/server/webhook-transport/signature";
import { inFlightDeferMs, takeDeliveryLease, WALLET_SUSPENDED } from "@/server/services/webhooks/delivery-queue";
import {
  lockSubscription,
  mailFailingPause,
  noteFailedAttempt,
  noteSuccessfulAttempt,
} from "@/server/services/webhooks/failing-pause";
import { retryPauseMs } from "@/server/webhook-transport/retry-after";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Pauses before retry n (index n-1 after the n-th failed attempt), ms: 1 min, 5 min, 15 min, 1 h, 3 h,
 * 6 h, 12 h, 24 h (spec "Events: Delivery behaviour").
 */
export const RETRY_SCHEDULE_MS = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
] as const;

/** Attempts in all: the first plus one per pause; the failure of the last one makes the delivery `dead`. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** Journal `error` of a delivery that waited past the 30-day retention for its paused subscription. */
export const SUBSCRIPTION_PAUSED = "subscription_paused";

/** How long a delivery waits while the tenant's exchange is suspended or the subscription paused, ms. */
export const DEFER_MS = 15 * MINUTE;

/** How long an attempt holds its lease when it takes one itself; well above the 10 s request timeout, ms. */
export const DEFAULT_LEASE_MS = 60_000;

/** `User-Agent` of deliveries. */
export const USER_AGENT = `ServiceWebhooks/${EVENT_API_VERSION}`;

/** A delivery's state (spec "WebhookDelivery"), or `gone` when the row no longer exists (subscription deleted). */
export type AttemptState = "pending" | "delivered" | "failed" | "dead" | "gone";

/**
 * What one step did. `final`: nothing more will happen to this delivery (delivered, dead, gone).
 * `nextAttemptAt`: when the next step is due (null when final).
 */
export interface AttemptOutcome {
  final: boolean;
  state: AttemptState;
  nextAttemptAt: Date | null;
}

/** Options of {@link attemptDelivery}. */
export interface AttemptOptions {
  /**
   * `locked_until` the caller got from claimDueDeliveries: the step then works under that lease. Without
   * it (the Inngest driver) the step takes a lease of {@link DEFAULT_LEASE_MS} itself (takeDeliveryLease),
   * or does nothing when another worker holds one or its subscription has 4 attempts in flight.
   */
  lease?: Date;
  /** The HTTP client; default the process-wide one (tests install one trusting their receiver). */
  client?: DeliveryClient;
}

const ms = (d: Date, add: number) => new Date(d.getTime() + add);

/**
 * One idempotent step of the webhook delivery state machine (spec "States and transitions: Webhook
 * delivery", "Events: Delivery behaviour"; DESIGN "State lives in PostgreSQL"):
 * - `delivered` / `dead` / missing row → final, nothing done;
 * - exchange of the delivery's mode suspended (readWallet of the live wallet for a live delivery, of the
 *   sandbox wallet for a sandbox one) → no attempt spent: `next_attempt_at` = now + 15 min with
 *   error `wallet_suspended` (so a top-up can find and resume it), or `dead` with that error when the
 *   event is older than the 30-day journal retention and so cannot wait any longer;
 * - subscription paused → no attempt spent, `next_attempt_at` = now + 15 min, or `dead` with error
 *   `subscription_paused` when the event is older than the 30-day journal retention (as for the wallet);
 * - `include_pii` subscriptions: the contact is added to `data` and a disclosure-journal row written
 *   first (server/services/webhooks/personal-data.ts);
 * - else one signed POST of the event envelope: 2xx → `delivered` (`delivered_at`, `status_code`,
 *   `duration_ms`, attempt + 1); anything else → attempt + 1, `failed` with the error code and
 *   `next_attempt_at` = now + RETRY_SCHEDULE_MS[attempt - 1] (longer when a 429 or 503 carried
 *   `Retry-After`, at most 24 h: retry-after.ts), or `dead` (no next attempt) when that was
 *   attempt {@link MAX_ATTEMPTS};
 * - issue 75 item 4: a failure opens or extends the subscription's run of failures (`failing_since`), a
 *   success closes it; a failure 3 days or more into the run pauses the subscription (`paused_reason`
 *   `failing`, in the outcome's transaction) and mails the staff after the commit (failing-pause.ts).
 * The outcome is written by one UPDATE guarded by the lease, the attempt number and the state, so when
 * two workers raced (an expired lease taken over) only one records; the other's POST is the duplicate
 * that "at least once" allows. An outcome of a POST is written in the same statement as its row of the
 * attempt log (issue 75 item 2: server/services/webhooks/attempt-log.ts), so only the winner logs one.
 * @param now the step's clock: schedules, `delivered_at` and the signature's `t` derive from it
 */
export async function attemptDelivery(
  db: Db,
  deliveryId: string,
  now: Date = new Date(),
  opts: AttemptOptions = {},
): Promise<AttemptOutcome> {
  const d = webhookDeliveries;
  // The wallet is read in the same round trip (it decides deferral), as the API reads it with the key.
  const [row] = await db
    .select({
      delivery: d,
      sub: webhookSubscriptions,
      event: events,
      wallet: { balanceMinor: wallets.balanceMinor, blocked: wallets.blocked, lowMinor: tenants.lowBalanceMinor },
    })
    .from(d)
    .innerJoin(
      webhookSubscriptions,
      and(
        eq(webhookSubscriptions.id, d.subscriptionId),
        eq(webhookSubscriptions.tenantId, d.tenantId),
        eq(webhookSubscriptions.livemode, d.livemode),
      ),
    )
    // Not by mode: a `webhook.test` of a live subscription recorded before issue 69 has `livemode` false.
    .innerJoin(events, and(eq(events.id, d.eventId), eq(events.tenantId, d.tenantId)))
    .innerJoin(tenants, eq(tenants.id, d.tenantId))
    // The wallet of the delivery's mode: a sandbox delivery waits on the sandbox wallet (issue 69).
    .leftJoin(wallets, and(eq(wallets.tenantId, d.tenantId), eq(wallets.livemode, d.livemode)))
    .where(eq(d.id, deliveryId));
  if (!row) return { final: true, state: "gone", nextAttemptAt: null };
  const { delivery, sub, event } = row;
  if (delivery.state === "delivered" || delivery.state === "dead")
    return { final: true, state: delivery.state, nextAttemptAt: null };
  const current = { final: false, state: delivery.state as AttemptState, nextAttemptAt: delivery.nextAttemptAt };

  let lease = opts.lease ?? null;
  // The caller's lease already passed to another worker: leave the row to it (no duplicate POST).
  if (lease && delivery.lockedUntil?.getTime() !== lease.getTime()) return current;
  if (!lease) {
    const taken = await takeDeliveryLease(db, {
      deliveryId,
      subscriptionId: delivery.subscriptionId,
      leaseMs: DEFAULT_LEASE_MS,
    });
    // Another worker is on it: come back when its lease ends.
    if ("refused" in taken && taken.refused === "leased") return { ...current, nextAttemptAt: delivery.lockedUntil };
    // Its subscription has 4 attempts in flight (issue 75 item 5): come back shortly, no attempt spent.
    if ("refused" in taken) return { ...current, nextAttemptAt: ms(now, inFlightDeferMs()) };
    lease = taken.lockedUntil;
  }
  const guard = and(
    eq(d.id, deliveryId),
    eq(d.lockedUntil, lease),
    eq(d.attempt, delivery.attempt),
    eq(d.state, delivery.state),
  );
  // The attempt log (issue 75 item 2): set once the POST is made; from then on the outcome and its attempt
  // row are recorded by one statement, so an attempt that lost the guard leaves no row.
  let logged: AttemptLogEntry | null = null;
  const record = async (
    set: Partial<typeof d.$inferInsert>,
    outcome: AttemptOutcome,
    onSubscription?: (tx: Db) => Promise<void>,
  ): Promise<AttemptOutcome> => {
    const full = { ...set, lockedUntil: null };
    const write = async (tx: Db) => {
      const won = logged
        ? await recordOutcomeWithAttempt(tx, full, guard!, logged)
        : (await tx.update(d).set(full).where(guard).returning({ id: d.id })).length > 0;
      // Lost the lease to another worker: what it records stands; report the row as we saw it.
      if (!won) return current;
      if (onSubscription) await onSubscription(tx);
      return outcome;
    };
    if (!onSubscription) return write(db);
    // The subscription is locked first, as a resume does (subscription, then its deliveries): no deadlock.
    return db.transaction(async (tx) => {
      await lockSubscription(tx as unknown as Db, sub.id);
      return write(tx as unknown as Db);
    });
  };

  const wallet = await readWallet(
    db,
    { tenantId: delivery.tenantId, livemode: delivery.livemode },
    row.wallet.balanceMinor === null
      ? null
      : (row.wallet as { balanceMinor: bigint; blocked: boolean; lowMinor: bigint }),
  );
  if (wallet.exchange === "suspended") {
    if (now.getTime() - event.createdAt.getTime() >= JOURNAL_RETENTION_MS) {
      return record(
        { state: "dead", error: WALLET_SUSPENDED, nextAttemptAt: null },
        { final: true, state: "dead", nextAttemptAt: null },
      );
    }
    const next = ms(now, DEFER_MS);
    return record({ error: WALLET_SUSPENDED, nextAttemptAt: next }, { ...current, nextAttemptAt: next });
  }
  if (sub.status !== "active") {
    // Retention deletes only final deliveries, so one that cannot wait any longer must end here.
    if (now.getTime() - event.createdAt.getTime() >= JOURNAL_RETENTION_MS) {
      return record(
        { state: "dead", error: SUBSCRIPTION_PAUSED, nextAttemptAt: null },
        { final: true, state: "dead", nextAttemptAt: null },
      );
    }
    const next = ms(now, DEFER_MS);
    return record({ nextAttemptAt: next }, { ...current, nextAttemptAt: next });
  }

  // include_pii: personal data is read now and the disclosure recorded before anything leaves.
  const pii = await personalDataForDelivery(db, sub, event);
  if (pii) {
    await recordDeliveryDisclosure(db, {
      tenantId: delivery.tenantId,
      livemode: delivery.livemode,
      integrationId: sub.integrationId,
      deliveryId,
      eventType: event.type,
      contactId: pii.contactId,
    });
  }
  const body = serializeEnvelope(buildEnvelope(pii ? { ...event, data: pii.data } : event));
  const result = await send(sub, body, event, now, opts.client ?? deliveryClient());
  logged = attemptLogEntry(result, now);
  const attempt = delivery.attempt + 1;
  if (result.ok) {
    return record(
      {
        state: "delivered",
        attempt,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: null,
        deliveredAt: now,
        nextAttemptAt: null,
      },
      { final: true, state: "delivered", nextAttemptAt: null },
      // A success ends the subscription's run of failures (issue 75 item 4). Skipped when none was open
      // as read: the usual success writes nothing more; a run opened meanwhile ends at the next success.
      sub.failingSince === null ? undefined : (tx) => noteSuccessfulAttempt(tx, sub.id),
    );
  }
  const failure = { attempt, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error };
  // Every failure extends the subscription's run; three days of it pause the subscription, mailed after the commit.
  let pausedFailingSince: Date | null = null;
  const onFailure = async (tx: Db) => {
    pausedFailingSince = await noteFailedAttempt(tx, sub.id, now);
  };
  const afterFailure = async (outcome: AttemptOutcome) => {
    if (pausedFailingSince) await mailFailingPause(db, { ...sub, failingSince: pausedFailingSince });
    return outcome;
  };
  if (attempt >= MAX_ATTEMPTS) {
    return afterFailure(
      await record(
        { ...failure, state: "dead", nextAttemptAt: null },
        { final: true, state: "dead", nextAttemptAt: null },
        onFailure,
      ),
    );
  }
  // A 429 or 503 with Retry-After waits at least that long (at most 24 h); the schedule is the minimum.
  const next = ms(now, retryPauseMs(RETRY_SCHEDULE_MS[attempt - 1]!, result.statusCode, result.retryAfter, now));
  return afterFailure(
    await record(
      { ...failure, state: "failed", nextAttemptAt: next },
      { final: false, state: "failed", nextAttemptAt: next },
      onFailure,
    ),
  );
}

/**
 * Signs and POSTs one attempt: `t` is the step's clock, `v1` with the current secret and, while the
 * rotation window is open (`previous_secret_expires_at` > now), also with the previous one.
 */
async function send(
  sub: typeof webhookSubscriptions.$inferSelect,
  body: string,
  event: typeof events.$inferSelect,
  now: Date,
  client: DeliveryClient,
): Promise<DeliveryResult> {
  let secrets: string[];
  try {
    secrets = [openSecret(sub.secretEnc)];
    if (sub.previousSecretEnc && sub.previousSecretExpiresAt && sub.previousSecretExpiresAt > now)
      secrets.push(openSecret(sub.previousSecretEnc));
  } catch {
    // The encryption key changed under the stored secret: nothing can be signed; counted as a failed attempt.
    return { ok: false, statusCode: null, durationMs: 0, error: "signing_secret_unavailable" };
  }
  const t = Math.floor(now.getTime() / 1000);
  return client.post(sub.url, body, {
    "Content-Type": "application/json",
    [DELIVERY_HEADERS.eventId]: event.id,
    [DELIVERY_HEADERS.eventType]: event.type,
    [DELIVERY_HEADERS.signature]: signatureHeader(body, secrets, t),
    "User-Agent": USER_AGENT,
  });
}
