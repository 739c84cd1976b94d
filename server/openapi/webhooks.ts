import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { EVENT_DATA, eventEnvelope } from "@/server/schemas/event-payloads";
import { EVENT_TYPES } from "@/server/webhook-transport/event-catalog";

/** Headers of every delivery (spec "Events: Delivery format"). */
const DeliveryHeaders = z.object({
  "Service-Event-Id": z.string().meta({
    description: "unique event id, identical in all retries; skip ids already processed (keep them 72 hours)",
  }),
  "Service-Event-Type": z.string().meta({ description: "the event type", example: "lead.created" }),
  "Service-Signature": z.string().meta({
    description:
      "`t=<unix-time>,v1=<hex>`; two `v1` values while a secret rotation window is open. `v1` = hex HMAC-SHA256 of `<t>.<raw body>` keyed with the subscription secret; compare in constant time, reject when |now - t| exceeds 5 minutes, parse JSON only afterwards.",
    example: "t=1780000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  }),
});

/** `webhooks.<event>.operationId`: `onLeadCreated` for `lead.created`. */
export function webhookOperationId(type: string): string {
  return (
    "on" +
    type
      .split(/[._]/)
      .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
      .join("")
  );
}

/**
 * The OpenAPI 3.1 `webhooks` of the document: one POST per event type of the catalog
 * (server/webhook-transport/event-catalog.ts), with the delivery headers, the envelope and the type's `data`.
 * @throws Error when a catalog type has no `data` shape in server/schemas/event-payloads.ts.
 */
export function webhooksOf(): ZodOpenApiPathsObject {
  const out: ZodOpenApiPathsObject = {};
  for (const type of EVENT_TYPES) {
    const data = EVENT_DATA[type];
    if (!data) throw new Error(`event ${type} has no data shape in server/schemas/event-payloads.ts`);
    out[type] = {
      post: {
        operationId: webhookOperationId(type),
        summary: `Event ${type}`,
        description: `${data.meta()?.description ?? ""}. Delivered as an HTTP POST to each active subscription whose events select it; unknown types must be answered with 2xx and ignored.`,
        tags: ["events"],
        requestParams: { header: DeliveryHeaders },
        requestBody: { required: true, content: { "application/json": { schema: eventEnvelope(type, data) } } },
        responses: {
          "2XX": {
            description: "Received. Any 2xx within 10 seconds is a success; anything else is retried up to 8 times.",
          },
          default: {
            description: "Failure: retried after 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, 24 h, then dead.",
          },
        },
      },
    };
  }
  return out;
}
