import type { Db } from "@/db/client";
import { webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import type { TenantFixture } from "./fixtures";

// The subscription and the queued delivery that the delivery tests (server/jobs/attempt-*.int.test.ts,
// adaptive-delivery) and the route fixtures each built for themselves: written straight to the tables (no
// DNS check of the URL), the delivery as the fan-out would queue it.

/**
 * Inserts a webhook subscription of `t`'s integration to `url` for `lead.*` (active, live, a new signing
 * secret unless given).
 * @returns the subscription's id and its signing secret in the clear (`whsec_…`)
 */
export async function insertSubscription(
  db: Db,
  t: TenantFixture,
  opts: {
    url: string;
    secret?: string;
    previous?: { secret: string; expiresAt: Date };
    status?: string;
    livemode?: boolean;
  },
): Promise<{ id: string; secret: string }> {
  const secret = opts.secret ?? newSigningSecret();
  const [row] = await db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      livemode: opts.livemode ?? true,
      integrationId: t.integrationId,
      url: opts.url,
      events: ["lead.*"],
      status: opts.status ?? "active",
      secretEnc: sealSecret(secret),
      previousSecretEnc: opts.previous ? sealSecret(opts.previous.secret) : null,
      previousSecretExpiresAt: opts.previous?.expiresAt ?? null,
    })
    .returning({ id: webhookSubscriptions.id });
  return { id: row!.id, secret };
}

/**
 * Records one `lead.created` event of `t` with a delivery to the one subscription (due now, attempt 0).
 * @param data the event's `data` (default: a new lead id, version 1)
 * @returns the event's id and its delivery's id
 * @throws Error when the subscription got no delivery (not `t`'s, another mode, or not matching `lead.*`)
 */
export async function queueDelivery(
  db: Db,
  t: TenantFixture,
  subscriptionId: string,
  opts: { data?: Record<string, unknown>; livemode?: boolean } = {},
): Promise<{ eventId: string; deliveryId: string }> {
  const r = await recordEventWithDeliveries(
    db,
    {
      tenantId: t.tenantId,
      livemode: opts.livemode ?? true,
      type: "lead.created",
      data: opts.data ?? { lead_id: crypto.randomUUID(), version: 1 },
    },
    { onlySubscriptionId: subscriptionId },
  );
  if (r.deliveryIds.length !== 1) throw new Error(`expected one delivery, got ${r.deliveryIds.length}`);
  return { eventId: r.eventId, deliveryId: r.deliveryIds[0]! };
}
