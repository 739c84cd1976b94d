import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createClient, isApiError, verifyWebhook, type PlatformClient } from "@platform/sdk";
import { webhookDeliveries } from "@/db/schema";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { issueKey } from "@/server/services/keys/keys";
import { setPreview } from "@/server/services/tenants/previews";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";

// The SDK's test helper of the preview `test-mode` against the app (in-process API, every answer checked
// against the preview's document): a sample event emitted with a test key reaches the sandbox's subscription
// and verifies as any delivery; a live key is told the helper does not exist.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let transport: DeliveryClient;
let sandbox: PlatformClient;
let live: PlatformClient;

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  transport = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  const t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "test-mode", true);
  const testKey = await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
  const fetch = inProcessFetch({ preview: "test-mode" });
  const baseUrl = `${TEST_ORIGIN}/api/public/v1`;
  sandbox = createClient({ baseUrl, apiKey: testKey.key, fetch });
  live = createClient({ baseUrl, apiKey: t.key, fetch });
});
afterAll(async () => {
  await transport.close();
  await rx.stop();
  await db.drop();
});

describe("client.testHelpers.emitEvent", () => {
  it("emits a sample event that reaches the sandbox's subscription and verifies", async () => {
    const hook = await sandbox.webhooks.create({ url: rx.url, events: ["lead.*"] });
    const event = await sandbox.testHelpers.emitEvent("lead.scored");
    expect(event).toMatchObject({ type: "lead.scored", livemode: false, api_version: "2026-10-01" });
    const [delivery] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
    expect(delivery!.subscriptionId).toBe(hook.id);
    expect(await attemptDelivery(db.db, delivery!.id, new Date(), { client: transport })).toMatchObject({
      state: "delivered",
    });
    const got = rx.requests.at(-1)!;
    const verified = await verifyWebhook(got.body, got.headers, hook.secret!);
    expect(verified).toEqual(event);
  });

  it("answers a live key with not_found", async () => {
    const err = await live.testHelpers.emitEvent("lead.created").catch((e: unknown) => e);
    expect(isApiError(err, "not_found")).toBe(true);
  });
});
