import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, webhookSubscriptions } from "@/db/schema";
import { ApiError, invalidField, notFound } from "@/server/errors";
import { now } from "@/server/lib/clock";
import { log } from "@/server/log";
import type { Webhook, WebhookCreate, WebhookUpdate } from "@/server/schemas/webhooks";
import { allowsIncludePii, piiScopeGroups } from "@/server/webhook-transport/event-catalog";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { checkWebhookUrl } from "@/server/webhook-transport/url-check";
import { assertPiiTransferAllowed } from "../access/pii-transfer";
import { actorLabel, type Actor } from "../actor";
import { recordEvent } from "../events/outbox";
import { resumeSubscription, PAUSED_FAILING } from "./failing-pause";
import { ownedByOwner, type WebhookOwner } from "./owner";

type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;

/** Subscriptions one integration may hold (spec "Limits": 10 per integration). */
export const MAX_SUBSCRIPTIONS_PER_INTEGRATION = 10;
/** How long the previous secret keeps signing after a rotation (spec "Secret rotation"), ms. */
export const ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Keyset position of a subscription in `GET /webhooks`: (updated_at, id), the spec's default list order. */
export type SubscriptionPosition = [string, string];

/** Row → the spec's Webhook. The rotation window shows only while it is open (clock of `now()`). */
export function toWebhook(row: SubscriptionRow): Webhook {
  const windowOpen = row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt.getTime() > now().getTime();
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    include_pii: row.includePii,
    description: row.description,
    status: row.status as Webhook["status"],
    paused_reason: row.pausedReason === PAUSED_FAILING ? PAUSED_FAILING : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    secret_rotated_at: row.secretRotatedAt?.toISOString() ?? null,
    previous_secret_expires_at: windowOpen ? row.previousSecretExpiresAt!.toISOString() : null,
  };
}

/**
 * Filter of what the owner may see: its own tenant, mode and integration (spec: foreign ones are 404; a
 * subscription of the other mode reads as missing too).
 */
const visibleTo = (owner: WebhookOwner, id: string) =>
  and(
    ownedByOwner(webhookSubscriptions, owner),
    eq(webhookSubscriptions.integrationId, owner.integrationId),
    eq(webhookSubscriptions.id, id),
  );

/**
 * A subscription row of the calling integration, optionally locked for update.
 * @throws ApiError 404 `not_found` when missing, of another integration or of another tenant.
 */
export async function findSubscription(
  db: Db,
  owner: WebhookOwner,
  id: string,
  lock = false,
): Promise<SubscriptionRow> {
  const q = db.select().from(webhookSubscriptions).where(visibleTo(owner, id));
  const [row] = await (lock ? q.for("update") : q);
  if (!row) throw notFound("Webhook subscription");
  return row;
}

/** `GET /webhooks/{id}`. @throws ApiError 404 for a missing or foreign subscription. */
export async function getSubscription(db: Db, owner: WebhookOwner, id: string): Promise<Webhook> {
  return toWebhook(await findSubscription(db, owner, id));
}

/** `GET /webhooks`: the integration's subscriptions of the owner's mode ordered by (updated_at, id), strictly after `after`. */
export async function listSubscriptions(
  db: Db,
  owner: WebhookOwner,
  q: { limit: number; after?: SubscriptionPosition },
): Promise<{ webhooks: Webhook[]; next: SubscriptionPosition | null }> {
  const conds = [
    ownedByOwner(webhookSubscriptions, owner),
    eq(webhookSubscriptions.integrationId, owner.integrationId),
  ];
  if (q.after)
    conds.push(
      sql`(${webhookSubscriptions.updatedAt}, ${webhookSubscriptions.id}) > (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`,
    );
  const rows = await db
    .select()
    .from(webhookSubscriptions)
    .where(and(...conds))
    .orderBy(asc(webhookSubscriptions.updatedAt), asc(webhookSubscriptions.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    webhooks: page.map(toWebhook),
    next: rows.length > q.limit && last ? [last.updatedAt.toISOString(), last.id] : null,
  };
}

/**
 * The `include_pii` rules (spec "Events" and "Endpoints: Webhooks"): every pattern of `lead.*`,
 * `contact.*` or `conversation.*` (else 422 on `field`); the integration's effective scopes hold a
 * matching read scope for each family used (else 403 `scope_missing`: a missing scope, as the catalog
 * names it); in the RU cell the transfer conditions of personal-data scopes (403 `pii_transfer_not_allowed`).
 * Turning it on also needs the staff member's personal-data right ({@link assertMayRoutePersonalData}).
 */
function assertIncludePiiAllowed(
  actor: Actor,
  owner: WebhookOwner,
  events: readonly string[],
  field: string,
  turningOn: boolean,
): void {
  if (!allowsIncludePii(events)) {
    throw invalidField(
      field,
      "not_allowed",
      "include_pii is allowed only when every event is of lead.*, contact.* or conversation.*",
    );
  }
  if (turningOn) assertMayRoutePersonalData(actor, "Sending personal data in webhook deliveries (include_pii)");
  for (const group of piiScopeGroups(events)) {
    if (!group.some((s) => owner.scopes.includes(s))) {
      throw new ApiError(
        "scope_missing",
        `include_pii for these events needs the scope ${group.join(" or ")}; the key's effective scopes are listed in GET /me.`,
      );
    }
  }
  assertPiiTransferAllowed(owner.cell, owner.transfer);
}

/**
 * Sending personal data to a new place needs the personal-data right (SECURITY.md "Rights"): a staff
 * member sets `include_pii`, or changes the URL of a subscription that has it, only with
 * `view_personal_data`. Integrations are bound by their scopes instead ({@link assertIncludePiiAllowed}).
 * @throws ApiError 403 `scope_missing` naming the right.
 */
function assertMayRoutePersonalData(actor: Actor, what: string): void {
  if (actor.via === "console" && !actor.rights.includes("view_personal_data")) {
    throw new ApiError("scope_missing", `${what} needs the "view_personal_data" right in this tenant.`);
  }
}

function logPiiEnabled(actor: Actor, owner: WebhookOwner, subscriptionId: string): void {
  // Enabling personal data in deliveries is logged (spec "Events"); ids only, never the secret or url.
  const by = actor.via === "api" ? { key_id: actor.keyId } : { by: actorLabel(actor) };
  log().info(
    { tenant_id: owner.tenantId, integration_id: owner.integrationId, ...by, webhook_id: subscriptionId },
    "webhook include_pii enabled",
  );
}

/**
 * `POST /webhooks`: creates a subscription with a new signing secret, in the owner's mode (one made in the
 * sandbox is a test subscription: it receives only sandbox events). The limit of 10 counts the
 * subscriptions of the owner's mode, since the sandbox is a separate copy of the tenant's world. Call inside
 * a transaction: the integration row is locked so parallel creates cannot pass the limit together.
 * @returns the Webhook and its secret in clear (shown once; only the sealed form is stored).
 * @throws ApiError 409 `invalid_state` for the 11th subscription of the integration; 422 on `/url`
 *   ({@link checkWebhookUrl}) or `/include_pii`; 403 `scope_missing` / `pii_transfer_not_allowed`.
 */
export async function createSubscription(
  db: Db,
  actor: Actor,
  owner: WebhookOwner,
  input: WebhookCreate,
): Promise<{ webhook: Webhook; secret: string }> {
  await db
    .select({ id: integrations.id })
    .from(integrations)
    .where(eq(integrations.id, owner.integrationId))
    .for("update");
  const [{ n }] = await db
    .select({ n: count() })
    .from(webhookSubscriptions)
    .where(and(ownedByOwner(webhookSubscriptions, owner), eq(webhookSubscriptions.integrationId, owner.integrationId)));
  if (n >= MAX_SUBSCRIPTIONS_PER_INTEGRATION) {
    throw new ApiError(
      "invalid_state",
      `An integration may hold at most ${MAX_SUBSCRIPTIONS_PER_INTEGRATION} webhook subscriptions; delete one first.`,
    );
  }
  if (input.include_pii) assertIncludePiiAllowed(actor, owner, input.events, "/include_pii", true);
  await checkWebhookUrl(input.url);
  const secret = newSigningSecret();
  const [row] = await db
    .insert(webhookSubscriptions)
    .values({
      tenantId: owner.tenantId,
      livemode: owner.livemode,
      integrationId: owner.integrationId,
      url: input.url,
      events: input.events,
      includePii: input.include_pii,
      description: input.description ?? null,
      status: "active",
      secretEnc: sealSecret(secret),
    })
    .returning();
  if (row.includePii) logPiiEnabled(actor, owner, row.id);
  return { webhook: toWebhook(row), secret };
}

/**
 * `PATCH /webhooks/{id}`: changes the given fields. The `include_pii` rules are checked against the
 * resulting events whenever `include_pii` is sent as true or `events` change while it is on. Setting a
 * paused subscription `active` clears `paused_reason` and `failing_since` and makes its waiting deliveries
 * due now, announced after the commit when run inside afterCommit (issue 75 item 4). Call inside a
 * transaction.
 * @throws ApiError 404 for a missing or foreign subscription; 422 on `/url`, `/events` or `/include_pii`;
 *   403 `scope_missing` / `pii_transfer_not_allowed`.
 */
export async function updateSubscription(
  db: Db,
  actor: Actor,
  owner: WebhookOwner,
  id: string,
  input: WebhookUpdate,
): Promise<Webhook> {
  const current = await findSubscription(db, owner, id, true);
  const events = input.events ?? current.events;
  const includePii = input.include_pii ?? current.includePii;
  if (input.include_pii === true || (includePii && input.events !== undefined)) {
    assertIncludePiiAllowed(
      actor,
      owner,
      events,
      input.include_pii === true ? "/include_pii" : "/events",
      input.include_pii === true && !current.includePii,
    );
  }
  if (includePii && input.url !== undefined && input.url !== current.url)
    assertMayRoutePersonalData(actor, "Changing where a subscription with include_pii sends personal data");
  if (input.url !== undefined) await checkWebhookUrl(input.url);
  const set: Partial<typeof webhookSubscriptions.$inferInsert> = { updatedAt: sql`now()` as unknown as Date };
  if (input.url !== undefined) set.url = input.url;
  if (input.events !== undefined) set.events = input.events;
  if (input.include_pii !== undefined) set.includePii = input.include_pii;
  if (input.description !== undefined) set.description = input.description;
  if (input.status !== undefined) set.status = input.status;
  // Resuming (issue 75 item 4): the pause's reason and the failing run are cleared, and what waited goes out now.
  const resuming = input.status === "active" && (current.status !== "active" || current.pausedReason !== null);
  if (resuming) await resumeSubscription(db, id, now());
  const [row] = await db.update(webhookSubscriptions).set(set).where(visibleTo(owner, id)).returning();
  if (row.includePii && !current.includePii) logPiiEnabled(actor, owner, row.id);
  return toWebhook(row);
}

/** `DELETE /webhooks/{id}`: the delivery journal goes with it (foreign key cascade). @throws ApiError 404. */
export async function deleteSubscription(db: Db, owner: WebhookOwner, id: string): Promise<void> {
  const gone = await db
    .delete(webhookSubscriptions)
    .where(visibleTo(owner, id))
    .returning({ id: webhookSubscriptions.id });
  if (gone.length === 0) throw notFound("Webhook subscription");
}

/**
 * `POST /webhooks/{id}/rotate-secret`: a new secret; the current one becomes the previous and keeps
 * signing for 24 hours (`previous_secret_expires_at`). A rotation inside an open window replaces the
 * previous secret with the one just retired, so at most two secrets sign at once.
 * @returns the Webhook and the new secret in clear (shown once). @throws ApiError 404.
 */
export async function rotateSecret(
  db: Db,
  owner: WebhookOwner,
  id: string,
): Promise<{ webhook: Webhook; secret: string }> {
  const current = await findSubscription(db, owner, id, true);
  const at = now();
  const secret = newSigningSecret();
  const [row] = await db
    .update(webhookSubscriptions)
    .set({
      secretEnc: sealSecret(secret),
      previousSecretEnc: current.secretEnc,
      previousSecretExpiresAt: new Date(at.getTime() + ROTATION_WINDOW_MS),
      secretRotatedAt: at,
      updatedAt: sql`now()` as unknown as Date,
    })
    .where(visibleTo(owner, id))
    .returning();
  return { webhook: toWebhook(row), secret };
}

/**
 * `POST /webhooks/{id}/test`: records event `webhook.test` (data `{webhook_id}`) and queues it for this
 * subscription only, whatever its `events` list. Call inside a transaction. The event row belongs to the
 * subscription's mode (so the sandbox's reset and the mode scoping treat it with its delivery), while the
 * envelope says `livemode: false` whatever that mode (spec "Delivery format"; envelope.ts).
 * @returns the event id (the `Service-Event-Id` of the delivery).
 * @throws ApiError 404 for a missing or foreign subscription; 409 `invalid_state` when it is paused.
 */
export async function sendTestEvent(db: Db, owner: WebhookOwner, id: string): Promise<string> {
  const sub = await findSubscription(db, owner, id, true);
  if (sub.status !== "active")
    throw new ApiError("invalid_state", "Test deliveries need an active subscription; set status active first.");
  return recordEvent(
    db,
    { tenantId: owner.tenantId, type: "webhook.test", data: { webhook_id: sub.id }, livemode: sub.livemode },
    { onlySubscriptionId: sub.id },
  );
}
