import { z } from "zod";
import type { Db } from "@/db/client";
import { check, validationError } from "@/server/lib/validation";
import {
  DeliveryState,
  WebhookCreateSchema,
  WebhookUpdateSchema,
  type Webhook,
  type WebhookDeliveryWithAttempts,
} from "@/server/schemas/webhooks";
import { afterCommit } from "@/server/services/events/work-notifier";
import * as journal from "@/server/services/webhooks/journal";
import { resolveSubscriptionOwner, resolveWebhookOwner } from "@/server/services/webhooks/owner";
import { getDeliveryWithAttempts } from "@/server/services/webhooks/attempt-log";
import { resendDeadSince, resendDelivery } from "@/server/services/webhooks/resend";
import * as subs from "@/server/services/webhooks/subscriptions";
import { router, withRight } from "../init";

// The console's webhook pages (issue 6 item 6). Every procedure needs the `manage_webhooks` right in the
// staff member's tenant; the same services as `/v1/webhooks` do the work for the chosen integration (its
// owner, server/services/webhooks/owner.ts), with the staff member as the actor. Another tenant's integration, subscription or delivery is
// NOT_FOUND with code not_found, as on the API.

const manage = withRight("manage_webhooks");

/** Fields as the form sends them; the API's own schemas check them so errors carry the same pointers. */
const fields = {
  url: z.string(),
  events: z.array(z.string()),
  include_pii: z.boolean(),
  description: z.string().nullable(),
};

/** Parses with the API schema; failures are 422 `validation_failed` with `errors[]` (`/url`, `/events/0`, ...). */
function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = check(schema, input);
  if (!r.ok) throw validationError(r.errors);
  return r.value;
}

/** Runs a write in one transaction; deliveries it queues are handed to the jobs driver after the commit. */
function write<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return afterCommit(() => db.transaction((tx) => work(tx as Db)));
}

/** A journal row as the console shows it: the API's WebhookDelivery plus the event type. */
export type ConsoleDelivery = journal.ConsoleDelivery;

/** The keyset position of the journal as the console pages it: (created_at ISO, id) of the last row shown. */
const DeliveryCursor = z.object({ createdAt: z.iso.datetime({ offset: true }), id: z.uuid() });

/** Webhook subscriptions of an integration and their delivery journal. */
export const webhooksRouter = router({
  /** Subscriptions of one integration (at most 10), oldest change first like `GET /webhooks`; no secrets. */
  list: manage.input(z.object({ integrationId: z.uuid() })).query(async ({ ctx, input }): Promise<Webhook[]> => {
    const owner = await resolveWebhookOwner(ctx.db, ctx.actor, input.integrationId);
    return (await subs.listSubscriptions(ctx.db, owner, { limit: subs.MAX_SUBSCRIPTIONS_PER_INTEGRATION })).webhooks;
  }),

  /** Creates a subscription; the only answer that carries its signing secret in clear. */
  create: manage
    .input(
      z.object({
        integrationId: z.uuid(),
        url: fields.url,
        events: fields.events,
        include_pii: fields.include_pii.optional(),
        description: fields.description.optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { integrationId, tenantId: _t, ...body } = input;
      const data = parse(WebhookCreateSchema, body);
      return write(ctx.db, async (tx) => {
        const owner = await resolveWebhookOwner(tx, ctx.actor, integrationId);
        const { webhook, secret } = await subs.createSubscription(tx, ctx.actor, owner, data);
        return { webhook, secret };
      });
    }),

  /** Changes url, events, include_pii or description (at least one). */
  update: manage
    .input(
      z.object({
        subscriptionId: z.uuid(),
        url: fields.url.optional(),
        events: fields.events.optional(),
        include_pii: fields.include_pii.optional(),
        description: fields.description.optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { subscriptionId, tenantId: _t, ...body } = input;
      const data = parse(WebhookUpdateSchema, body);
      return write(ctx.db, async (tx) =>
        subs.updateSubscription(
          tx,
          ctx.actor,
          await resolveSubscriptionOwner(tx, ctx.actor, subscriptionId),
          subscriptionId,
          data,
        ),
      );
    }),

  /** Pauses or resumes (spec "States and transitions: Webhook subscription"). */
  setStatus: manage
    .input(z.object({ subscriptionId: z.uuid(), status: z.enum(["active", "paused"]) }))
    .mutation(async ({ ctx, input }) =>
      write(ctx.db, async (tx) =>
        subs.updateSubscription(
          tx,
          ctx.actor,
          await resolveSubscriptionOwner(tx, ctx.actor, input.subscriptionId),
          input.subscriptionId,
          { status: input.status },
        ),
      ),
    ),

  /** New signing secret, shown once; the previous one keeps signing for 24 hours. */
  rotateSecret: manage
    .input(z.object({ subscriptionId: z.uuid() }))
    .mutation(async ({ ctx, input }) =>
      write(ctx.db, async (tx) =>
        subs.rotateSecret(
          tx,
          await resolveSubscriptionOwner(tx, ctx.actor, input.subscriptionId),
          input.subscriptionId,
        ),
      ),
    ),

  /** Queues `webhook.test` for this subscription only (it must be active, else CONFLICT invalid_state). */
  sendTest: manage.input(z.object({ subscriptionId: z.uuid() })).mutation(async ({ ctx, input }) => {
    const eventId = await write(ctx.db, async (tx) =>
      subs.sendTestEvent(tx, await resolveSubscriptionOwner(tx, ctx.actor, input.subscriptionId), input.subscriptionId),
    );
    return { eventId };
  }),

  /** Deletes the subscription with its delivery journal. */
  remove: manage.input(z.object({ subscriptionId: z.uuid() })).mutation(async ({ ctx, input }) => {
    await write(ctx.db, async (tx) =>
      subs.deleteSubscription(
        tx,
        await resolveSubscriptionOwner(tx, ctx.actor, input.subscriptionId),
        input.subscriptionId,
      ),
    );
    return { id: input.subscriptionId };
  }),

  /** The journal of a subscription, newest first, 30 days; optional state; `next` pages on. */
  deliveries: manage
    .input(
      z.object({
        subscriptionId: z.uuid(),
        state: DeliveryState.nullish(),
        cursor: DeliveryCursor.nullish(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .query(
      async ({ ctx, input }): Promise<{ items: ConsoleDelivery[]; next: z.infer<typeof DeliveryCursor> | null }> => {
        const owner = await resolveSubscriptionOwner(ctx.db, ctx.actor, input.subscriptionId);
        const page = await journal.listDeliveriesWithTypes(ctx.db, owner, input.subscriptionId, {
          limit: input.limit,
          state: input.state ?? undefined,
          after: input.cursor ? [input.cursor.createdAt, input.cursor.id] : undefined,
        });
        return { items: page.deliveries, next: page.next ? { createdAt: page.next[0], id: page.next[1] } : null };
      },
    ),

  /**
   * One delivery with its attempt log, oldest attempt first (issue 75 item 2), as
   * `GET /webhooks/{id}/deliveries/{delivery_id}` answers it.
   */
  delivery: manage
    .input(z.object({ subscriptionId: z.uuid(), deliveryId: z.uuid() }))
    .query(async ({ ctx, input }): Promise<WebhookDeliveryWithAttempts> => {
      const owner = await resolveSubscriptionOwner(ctx.db, ctx.actor, input.subscriptionId);
      return getDeliveryWithAttempts(ctx.db, owner, input.subscriptionId, input.deliveryId);
    }),

  /**
   * Manual resend of a `dead` or `failed` delivery (issue 75 item 3): pending again, attempt 0, due now.
   * Pending and delivered ones (or one being attempted right now): CONFLICT invalid_state.
   */
  resend: manage
    .input(z.object({ deliveryId: z.uuid() }))
    .mutation(async ({ ctx, input }) => write(ctx.db, (tx) => resendDelivery(tx, ctx.actor, input.deliveryId))),

  /**
   * "Resend all dead since …" (issue 75 item 3): every dead delivery of the subscription created at or after
   * `since` starts a new attempt cycle; answers how many.
   */
  resendDeadSince: manage
    .input(z.object({ subscriptionId: z.uuid(), since: z.iso.datetime({ offset: true }) }))
    .mutation(async ({ ctx, input }) =>
      write(ctx.db, async (tx) =>
        resendDeadSince(
          tx,
          await resolveSubscriptionOwner(tx, ctx.actor, input.subscriptionId),
          input.subscriptionId,
          new Date(input.since),
        ),
      ),
    ),
});
