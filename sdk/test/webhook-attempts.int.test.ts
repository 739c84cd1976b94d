import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, isApiError, type PlatformClient } from "@platform/sdk";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";

// The SDK's `webhooks.deliveries.get` and `.resend` (issue 75 items 2 and 3) against the app (in-process
// API, every answer checked against the document): a failed attempt's answer is in the log, a resend sends
// the delivery once more, and a pending or delivered one is refused with `invalid_state`.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let transport: DeliveryClient;
let sdk: PlatformClient;

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  transport = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  const t = await makeTenant(db.db);
  sdk = createClient({ baseUrl: `${TEST_ORIGIN}/api/public/v1`, apiKey: t.key, fetch: inProcessFetch() });
});
afterEach(() => {
  rx.respond({ kind: "status", status: 200 });
  rx.requests.length = 0;
});
afterAll(async () => {
  await transport.close();
  await rx.stop();
  await db.drop();
});

describe("client.webhooks.deliveries", () => {
  it("get shows each attempt's answer; resend sends the delivery once more; pending and delivered are refused", async () => {
    const hook = await sdk.webhooks.create({ url: rx.url, events: ["lead.*"] });
    const queued = await sdk.webhooks.test(hook.id);
    const [delivery] = await sdk.webhooks.deliveries.list(hook.id).toArray();
    expect(delivery!.event_id).toBe(queued.event_id);

    const pending = await sdk.webhooks.deliveries.resend(hook.id, delivery!.id).catch((e: unknown) => e);
    expect(isApiError(pending, "invalid_state")).toBe(true);

    rx.respond({ kind: "answer", status: 400, headers: { "Content-Type": "text/plain" }, body: "bad signature" });
    await attemptDelivery(db.db, delivery!.id, new Date(), { client: transport });
    const failed = await sdk.webhooks.deliveries.get(hook.id, delivery!.id);
    expect(failed).toMatchObject({ id: delivery!.id, state: "failed", attempt: 1, error: "http_400" });
    expect(failed.attempts).toHaveLength(1);
    expect(failed.attempts[0]).toMatchObject({
      response_status: 400,
      response_body: "bad signature",
      error: "http_400",
    });
    expect(failed.attempts[0]!.response_headers).toMatchObject({ "content-type": "text/plain" });

    const key = crypto.randomUUID();
    const resent = await sdk.webhooks.deliveries.resend(hook.id, delivery!.id, { idempotencyKey: key });
    expect(resent).toMatchObject({ id: delivery!.id, state: "pending", attempt: 0 });
    rx.respond({ kind: "status", status: 200 });
    await attemptDelivery(db.db, delivery!.id, new Date(), { client: transport });
    expect(rx.requests).toHaveLength(2);
    // The same key again: the delivery as it is now, nothing resent.
    expect(await sdk.webhooks.deliveries.resend(hook.id, delivery!.id, { idempotencyKey: key })).toMatchObject({
      state: "delivered",
    });
    const delivered = await sdk.webhooks.deliveries.get(hook.id, delivery!.id);
    expect(delivered.attempts.map((a) => a.response_status)).toEqual([400, 200]);
    const again = await sdk.webhooks.deliveries.resend(hook.id, delivery!.id).catch((e: unknown) => e);
    expect(isApiError(again, "invalid_state")).toBe(true);

    const missing = await sdk.webhooks.deliveries.get(hook.id, crypto.randomUUID()).catch((e: unknown) => e);
    expect(isApiError(missing, "not_found")).toBe(true);
  });
});
