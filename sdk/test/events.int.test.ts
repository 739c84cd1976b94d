import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isApiError, verifyWebhook, type PlatformClient } from "@platform/sdk";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";

// The SDK's event journal against the app (in-process API, every answer checked against the document): a
// receiver that missed deliveries reads them with `client.events.list`, each event equal to what
// `verifyWebhook` returns for its delivery; `client.events.get` reads one.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let transport: DeliveryClient;
let t: TenantFixture;
let client: PlatformClient;

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  transport = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  t = await makeTenant(db.db);
  client = createClient({ baseUrl: `${TEST_ORIGIN}/api/public/v1`, apiKey: t.key, fetch: inProcessFetch() });
});
afterAll(async () => {
  await transport.close();
  await rx.stop();
  await db.drop();
});

describe("client.events", () => {
  it("lists every event missed during an outage, newest first, equal to its verified delivery", async () => {
    const hook = await client.webhooks.create({ url: rx.url, events: ["task.*"] });
    const since = new Date(Date.now() - 1000).toISOString();
    rx.respond({ kind: "status", status: 503 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await recordEventWithDeliveries(db.db, {
        tenantId: t.tenantId,
        livemode: true,
        type: "task.created",
        data: {},
      });
      expect((await attemptDelivery(db.db, r.deliveryIds[0]!, new Date(), { client: transport })).state).toBe("failed");
      ids.push(r.eventId);
    }
    const listed = await client.events.list({ created_after: since, type: "task.*", limit: 2 }).toArray();
    expect(listed.map((e) => e.id)).toEqual([...ids].reverse());
    for (const event of listed) {
      const got = rx.requests.find((q) => q.headers["service-event-id"] === event.id)!;
      expect(await verifyWebhook(got.body, got.headers, hook.secret!)).toEqual(event);
      expect(await client.events.get(event.id)).toEqual(event);
    }
  });

  it("throws not_found for an event it cannot see", async () => {
    const err = await client.events.get(crypto.randomUUID()).catch((e: unknown) => e);
    expect(isApiError(err, "not_found")).toBe(true);
  });
});
