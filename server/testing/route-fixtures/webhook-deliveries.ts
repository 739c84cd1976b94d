import type { Db } from "@/db/client";
import { events, webhookDeliveries, webhookDeliveryAttempts } from "@/db/schema";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";
import { insertSubscription } from "../webhook-fixture";

/**
 * A `dead` delivery (so a resend is allowed) with one logged attempt, of an active subscription of the
 * owner's integration (written directly: no DNS in fixtures). @returns `/webhooks/{id}/deliveries/{delivery_id}`
 */
async function deadDelivery(db: Db, o: TenantFixture): Promise<string> {
  const sub = await insertSubscription(db, o, { url: "https://hooks.example.com/matrix" });
  const [event] = await db
    .insert(events)
    .values({ tenantId: o.tenantId, type: "lead.created", data: { lead_id: crypto.randomUUID(), version: 1 } })
    .returning({ id: events.id });
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({
      tenantId: o.tenantId,
      subscriptionId: sub.id,
      eventId: event.id,
      eventType: "lead.created",
      state: "dead",
      attempt: 9,
      statusCode: 500,
      durationMs: 80,
      error: "http_500",
      nextAttemptAt: null,
    })
    .returning({ id: webhookDeliveries.id });
  await db.insert(webhookDeliveryAttempts).values({
    tenantId: o.tenantId,
    deliveryId: delivery.id,
    attemptedAt: new Date(),
    durationMs: 80,
    responseStatus: 500,
    responseHeaders: { "content-type": "text/plain" },
    responseBody: "down",
    error: "http_500",
  });
  return `/webhooks/${sub.id}/deliveries/${delivery.id}`;
}

const missing = () => `/webhooks/${crypto.randomUUID()}/deliveries/${crypto.randomUUID()}`;

/** Isolation fixtures of a delivery's routes (issue 75 items 2 and 3; see ID_ROUTE_FIXTURES). */
export const WEBHOOK_DELIVERY_FIXTURES: Record<string, IdRouteFixture> = {
  getWebhookDelivery: { make: deadDelivery, missing: async () => missing() },
  resendWebhookDelivery: {
    make: async (db, o) => `${await deadDelivery(db, o)}/resend`,
    missing: async () => `${missing()}/resend`,
  },
};
