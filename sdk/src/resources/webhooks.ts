import { Paginated } from "../paginate.js";
import type {
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookDeliveryWithAttempts,
  WebhookListQuery,
  WebhookTestResult,
  WebhookUpdate,
  WebhookWithSecret,
} from "../types.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/** Outgoing webhook subscriptions of this integration (spec "Webhooks"; scope `webhooks:manage`). */
export function webhooksResource(ctx: Context) {
  return {
    /** `GET /webhooks` (at most 10 subscriptions; secrets are never listed). */
    list: (query: WebhookListQuery = {}, o?: CallOptions): Paginated<Webhook> =>
      new Paginated(
        (cursor) => unwrap(ctx.raw.GET("/webhooks", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),

    /**
     * `POST /webhooks`: an https address on port 443 with a host name, and the events (exact types or
     * `<family>.*`). The answer carries `secret` once: store it. When the first answer was lost and the
     * client's retry got the replay, `secret` is null; then call `rotateSecret`.
     * @throws ApiError `validation_failed` (address refused, unknown event), `invalid_state` (11th subscription)
     */
    create: (body: WebhookCreate, o?: WriteOptions): Promise<WebhookWithSecret> =>
      unwrap(
        ctx.raw.POST("/webhooks", {
          params: { header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),

    /** `GET /webhooks/{id}` (no secret). @throws ApiError `not_found` */
    get: (id: string, o?: CallOptions): Promise<Webhook> =>
      unwrap(ctx.raw.GET("/webhooks/{id}", { params: { path: { id } }, signal: o?.signal })),

    /** `PATCH /webhooks/{id}`: url, events, description, include_pii or status (`paused` / `active`); at least one. */
    update: (id: string, body: WebhookUpdate, o?: WriteOptions): Promise<Webhook> =>
      unwrap(
        ctx.raw.PATCH("/webhooks/{id}", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),

    /** `DELETE /webhooks/{id}` with its delivery journal. Not retried. @throws ApiError `not_found` */
    delete: async (id: string, o?: CallOptions): Promise<void> => {
      await unwrap(ctx.raw.DELETE("/webhooks/{id}", { params: { path: { id } }, signal: o?.signal }));
    },

    /**
     * `POST /webhooks/{id}/rotate-secret`: a new secret (shown once). For 24 hours deliveries carry a
     * signature with each secret (`previous_secret_expires_at`); give both to `verifyWebhook` meanwhile.
     */
    rotateSecret: (id: string, o?: WriteOptions): Promise<WebhookWithSecret> =>
      unwrap(
        ctx.raw.POST("/webhooks/{id}/rotate-secret", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          signal: o?.signal,
        }),
      ),

    /** `POST /webhooks/{id}/test`: queues a `webhook.test` event for this subscription only. @throws ApiError `invalid_state` when paused */
    test: (id: string, o?: WriteOptions): Promise<WebhookTestResult> =>
      unwrap(
        ctx.raw.POST("/webhooks/{id}/test", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          signal: o?.signal,
        }),
      ),

    deliveries: {
      /** `GET /webhooks/{id}/deliveries`: the journal (30 days), newest first; `state` filter; every page. */
      list: (webhookId: string, query: WebhookDeliveryListQuery = {}, o?: CallOptions): Paginated<WebhookDelivery> =>
        new Paginated(
          (cursor) =>
            unwrap(
              ctx.raw.GET("/webhooks/{id}/deliveries", {
                params: { path: { id: webhookId }, query: { ...query, cursor } },
                signal: o?.signal,
              }),
            ),
          query.cursor,
        ),

      /**
       * `GET /webhooks/{id}/deliveries/{delivery_id}`: one delivery with its attempt log, oldest attempt
       * first (each with the answer's status, the headers content-type, retry-after, date and server, and
       * the first 2 KB of its body). @throws ApiError `not_found` (also for one older than 30 days)
       */
      get: (webhookId: string, deliveryId: string, o?: CallOptions): Promise<WebhookDeliveryWithAttempts> =>
        unwrap(
          ctx.raw.GET("/webhooks/{id}/deliveries/{delivery_id}", {
            params: { path: { id: webhookId, delivery_id: deliveryId } },
            signal: o?.signal,
          }),
        ),

      /**
       * `POST /webhooks/{id}/deliveries/{delivery_id}/resend`: a new attempt cycle for a `dead` or `failed`
       * delivery (`pending`, due now, `attempt` 0; its earlier attempts stay in the log).
       * @throws ApiError `invalid_state` for a pending or delivered one, `not_found`
       */
      resend: (webhookId: string, deliveryId: string, o?: WriteOptions): Promise<WebhookDelivery> =>
        unwrap(
          ctx.raw.POST("/webhooks/{id}/deliveries/{delivery_id}/resend", {
            params: {
              path: { id: webhookId, delivery_id: deliveryId },
              header: { "Idempotency-Key": keyOf(ctx, o) },
            },
            signal: o?.signal,
          }),
        ),
    },
  };
}
