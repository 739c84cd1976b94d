import { UuidParam, pageOf } from "@/server/schemas/common";
import {
  DeliveryListQuery,
  DeliveryParams,
  WebhookCreateSchema,
  WebhookDeliverySchema,
  WebhookDeliveryWithAttemptsSchema,
  WebhookListQuery,
  WebhookSchema,
  WebhookTestResultSchema,
  WebhookUpdateSchema,
  WebhookWithSecretSchema,
} from "@/server/schemas/webhooks";
import type { ApiCaller } from "@/server/services/actor";
import { livemodeOf } from "@/server/services/tenant-scope";
import type { WebhookOwner } from "@/server/services/webhooks/owner";
import { getDeliveryWithAttempts } from "@/server/services/webhooks/attempt-log";
import * as journal from "@/server/services/webhooks/journal";
import { readResentDelivery, resendSubscriptionDelivery } from "@/server/services/webhooks/resend";
import * as subs from "@/server/services/webhooks/subscriptions";
import { created, defineRoute, noContent, ok, page } from "../define-route";
import { InstantIdPosition } from "../positions";

// Spec "Endpoints: Webhooks". Every route needs `webhooks:manage`; a subscription is visible only to the
// integration that created it, so another integration's id answers 404 like a missing one.

/**
 * Through the API, a subscription's owner is the calling key's integration in the key's mode (a test key of
 * a tenant with the preview `test-mode` manages test subscriptions): its effective scopes, and for the RU
 * transfer rule of `include_pii` the same facts as personal-data routes (the key's allowlist).
 */
const ownerOf = (caller: ApiCaller): WebhookOwner => ({
  tenantId: caller.tenantId,
  livemode: livemodeOf(caller.actor),
  integrationId: caller.integrationId,
  cell: caller.actor.cell,
  scopes: caller.scopes,
  transfer: {
    country: caller.integration.piiCountry,
    legalBasis: caller.integration.legalBasis,
    ipAllowlist: caller.key.ipAllowlist,
  },
});

/** `GET /webhooks`: this integration's subscriptions (at most 10), secret never returned. */
export const listWebhooksRoute = defineRoute({
  operationId: "listWebhooks",
  summary: "List this integration's webhook subscriptions",
  method: "GET",
  path: "/webhooks",
  scope: "webhooks:manage",
  rate: "read",
  query: WebhookListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(WebhookSchema) },
  handler: async ({ db, caller, query, after }) => {
    const p = await subs.listSubscriptions(db, ownerOf(caller), { limit: query.limit, after });
    return page(p.webhooks, p.next);
  },
});

/** `POST /webhooks`: 201 WebhookWithSecret; the secret is shown once, a replay answers `secret: null`. */
export const createWebhookRoute = defineRoute({
  operationId: "createWebhook",
  summary: "Create a webhook subscription",
  method: "POST",
  path: "/webhooks",
  scope: "webhooks:manage",
  rate: "write",
  idempotency: "required",
  body: WebhookCreateSchema,
  responses: { 201: WebhookWithSecretSchema },
  problems: ["pii_transfer_not_allowed", "invalid_state"],
  handler: async ({ db, actor, caller, body }) => {
    const { webhook, secret } = await subs.createSubscription(db, actor, ownerOf(caller), body);
    return created({ ...webhook, secret }, { type: "webhook", id: webhook.id });
  },
  replay: async ({ db, caller }, id, status) => ({
    status,
    body: { ...(await subs.getSubscription(db, ownerOf(caller), id)), secret: null },
  }),
});

/** `GET /webhooks/{id}`: one subscription, no secret. */
export const getWebhookRoute = defineRoute({
  operationId: "getWebhook",
  summary: "Read a webhook subscription",
  method: "GET",
  path: "/webhooks/{id}",
  scope: "webhooks:manage",
  rate: "read",
  params: UuidParam,
  responses: { 200: WebhookSchema },
  handler: async ({ db, caller, params }) => ok(await subs.getSubscription(db, ownerOf(caller), params.id)),
});

/** `PATCH /webhooks/{id}`: url, events, include_pii, description, status (at least one). */
export const updateWebhookRoute = defineRoute({
  operationId: "updateWebhook",
  summary: "Change a webhook subscription",
  description:
    "`status: active` on a paused subscription resumes it: `paused_reason` becomes null and its waiting deliveries are due at once (those older than 30 days were given up as `dead`).",
  method: "PATCH",
  path: "/webhooks/{id}",
  scope: "webhooks:manage",
  rate: "write",
  params: UuidParam,
  body: WebhookUpdateSchema,
  responses: { 200: WebhookSchema },
  problems: ["pii_transfer_not_allowed"],
  handler: async ({ db, actor, caller, params, body }) => {
    const webhook = await subs.updateSubscription(db, actor, ownerOf(caller), params.id, body);
    return { status: 200, body: webhook, resource: { type: "webhook", id: webhook.id } };
  },
  replay: async ({ db, caller }, id, status) => ({ status, body: await subs.getSubscription(db, ownerOf(caller), id) }),
});

/** `DELETE /webhooks/{id}`: 204 with its delivery journal; a repeat is 404. */
export const deleteWebhookRoute = defineRoute({
  operationId: "deleteWebhook",
  summary: "Delete a webhook subscription and its delivery journal",
  method: "DELETE",
  path: "/webhooks/{id}",
  scope: "webhooks:manage",
  rate: "write",
  params: UuidParam,
  responses: { 204: null },
  handler: async ({ db, caller, params }) => {
    await subs.deleteSubscription(db, ownerOf(caller), params.id);
    return noContent();
  },
});

/** `POST /webhooks/{id}/rotate-secret`: 200 WebhookWithSecret; the old secret signs 24 h more. */
export const rotateWebhookSecretRoute = defineRoute({
  operationId: "rotateWebhookSecret",
  summary: "Issue a new signing secret",
  method: "POST",
  path: "/webhooks/{id}/rotate-secret",
  scope: "webhooks:manage",
  rate: "write",
  idempotency: "required",
  params: UuidParam,
  responses: { 200: WebhookWithSecretSchema },
  handler: async ({ db, caller, params }) => {
    const { webhook, secret } = await subs.rotateSecret(db, ownerOf(caller), params.id);
    return { status: 200, body: { ...webhook, secret }, resource: { type: "webhook", id: webhook.id } };
  },
  replay: async ({ db, caller }, id, status) => ({
    status,
    body: { ...(await subs.getSubscription(db, ownerOf(caller), id)), secret: null },
  }),
});

const testResult = (eventId: string) => ({
  event_id: eventId,
  type: "webhook.test" as const,
  status: "queued" as const,
});

/** `POST /webhooks/{id}/test`: 202; queues `webhook.test` for this subscription only (must be active). */
export const testWebhookRoute = defineRoute({
  operationId: "testWebhook",
  summary: "Queue a test event for this subscription",
  method: "POST",
  path: "/webhooks/{id}/test",
  scope: "webhooks:manage",
  rate: "write",
  idempotency: "required",
  params: UuidParam,
  responses: { 202: WebhookTestResultSchema },
  problems: ["invalid_state"],
  handler: async ({ db, caller, params }) => {
    const eventId = await subs.sendTestEvent(db, ownerOf(caller), params.id);
    return { status: 202, body: testResult(eventId), resource: { type: "event", id: eventId } };
  },
  replay: async (_ctx, eventId, status) => ({ status, body: testResult(eventId) }),
});

/** `GET /webhooks/{id}/deliveries`: the journal, newest first, kept 30 days; `limit`, `cursor`, `state`. */
export const listWebhookDeliveriesRoute = defineRoute({
  operationId: "listWebhookDeliveries",
  summary: "List the delivery journal of a subscription",
  method: "GET",
  path: "/webhooks/{id}/deliveries",
  scope: "webhooks:manage",
  rate: "read",
  params: UuidParam,
  query: DeliveryListQuery,
  responses: { 200: pageOf(WebhookDeliverySchema) },
  list: { position: InstantIdPosition },
  handler: async ({ db, caller, params, query, after }) => {
    const p = await journal.listDeliveries(db, ownerOf(caller), params.id, {
      limit: query.limit,
      state: query.state,
      after,
    });
    return page(p.deliveries, p.next);
  },
});

/**
 * `GET /webhooks/{id}/deliveries/{delivery_id}` (issue 75 item 2): one journal row with its attempt log,
 * oldest attempt first; 404 for a delivery of another subscription, integration, tenant or mode, or one
 * older than the journal's 30 days.
 */
export const getWebhookDeliveryRoute = defineRoute({
  operationId: "getWebhookDelivery",
  summary: "Read a delivery with its attempt log",
  description:
    "Every HTTP attempt of the delivery, oldest first: when, how long, and what the receiver answered (status, the headers content-type, retry-after, date and server, and the first 2 KB of the body). Attempts made before a resend stay.",
  method: "GET",
  path: "/webhooks/{id}/deliveries/{delivery_id}",
  scope: "webhooks:manage",
  rate: "read",
  params: DeliveryParams,
  responses: { 200: WebhookDeliveryWithAttemptsSchema },
  handler: async ({ db, caller, params }) =>
    ok(await getDeliveryWithAttempts(db, ownerOf(caller), params.id, params.delivery_id)),
});

/**
 * `POST /webhooks/{id}/deliveries/{delivery_id}/resend` (issue 75 item 3): a new attempt cycle for a `dead`
 * or `failed` delivery. 202 like `POST /webhooks/{id}/test`: the attempt itself happens later, and the
 * answer is the delivery as queued (`pending`, due now, `attempt` 0). A replay answers the delivery as it
 * is now, without resending again.
 */
export const resendWebhookDeliveryRoute = defineRoute({
  operationId: "resendWebhookDelivery",
  summary: "Resend a dead or failed delivery",
  description:
    "Starts a new attempt cycle: the delivery becomes `pending`, due now, with `attempt` 0, so a full retry schedule follows; its earlier attempts stay in the attempt log. A `pending` or `delivered` delivery (or one being attempted at this moment) answers 409 `invalid_state`.",
  method: "POST",
  path: "/webhooks/{id}/deliveries/{delivery_id}/resend",
  scope: "webhooks:manage",
  rate: "write",
  idempotency: "required",
  params: DeliveryParams,
  responses: { 202: WebhookDeliverySchema },
  problems: ["invalid_state"],
  handler: async ({ db, caller, params }) => {
    const delivery = await resendSubscriptionDelivery(db, ownerOf(caller), params.id, params.delivery_id);
    return { status: 202, body: delivery, resource: { type: "webhook_delivery", id: delivery.id } };
  },
  replay: async ({ db, caller, params }, id, status) => ({
    status,
    body: await readResentDelivery(db, ownerOf(caller), params.id, id),
  }),
});

/** The webhook routes in the order of the spec's table (issue 75's additions after it). */
export const WEBHOOK_ROUTES = [
  listWebhooksRoute,
  createWebhookRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateWebhookSecretRoute,
  testWebhookRoute,
  listWebhookDeliveriesRoute,
  getWebhookDeliveryRoute,
  resendWebhookDeliveryRoute,
];
