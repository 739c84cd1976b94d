import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  verifyWebhook,
  WebhookVerificationError,
  type PlatformClient,
  type WebhookVerificationReason,
} from "@platform/sdk";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import {
  LOOPBACK_RECEIVER_ENV,
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
} from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";

// The SDK's verifyWebhook against real deliveries of the app: subscriptions are made, tested and rotated
// through the SDK (in-process API, every answer checked against the document), the app's delivery step
// POSTs signed events over HTTPS to a local receiver, and what the receiver got is verified as an
// integrator would verify it: untouched, tampered, too old, and across a secret rotation.

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
  rx.requests.length = 0;
});
afterAll(async () => {
  await transport.close();
  await rx.stop();
  await db.drop();
});

/** Sends a test event through the SDK and runs the app's delivery step for it at `now`; returns what the receiver got. */
async function deliverTest(webhookId: string, now = new Date()): Promise<ReceivedRequest & { eventId: string }> {
  const queued = await sdk.webhooks.test(webhookId);
  expect(queued).toMatchObject({ type: "webhook.test", status: "queued" });
  const pending = await sdk.webhooks.deliveries.list(webhookId, { state: "pending" }).toArray();
  const delivery = pending.find((d) => d.event_id === queued.event_id);
  expect(delivery, "the test event's delivery is in the journal").toBeDefined();
  const before = rx.requests.length;
  expect(await attemptDelivery(db.db, delivery!.id, now, { client: transport })).toMatchObject({ state: "delivered" });
  expect(rx.requests).toHaveLength(before + 1);
  return { ...rx.requests.at(-1)!, eventId: queued.event_id! };
}

async function refusal(p: Promise<unknown>): Promise<WebhookVerificationReason | "accepted"> {
  try {
    await p;
    return "accepted";
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
}

describe("verifyWebhook on the app's deliveries", () => {
  it("returns the typed event of an untouched delivery, and refuses a tampered body and an old timestamp", async () => {
    const hook = await sdk.webhooks.create({ url: rx.url, events: ["lead.*"], description: "sdk verify" });
    expect(hook.secret).toMatch(/^whsec_/);
    const got = await deliverTest(hook.id);

    const event = await verifyWebhook(got.body, got.headers, hook.secret!);
    expect(event.type).toBe("webhook.test");
    expect(event.id).toBe(got.eventId);
    expect(event.id).toBe(got.headers["service-event-id"]);
    expect(event).toMatchObject({ api_version: "2026-10-01", livemode: false });
    // The same bytes as a Buffer and a fetch Headers object, as a Next.js or Express receiver holds them.
    await expect(verifyWebhook(Buffer.from(got.body), new Headers(got.headers), [hook.secret!])).resolves.toEqual(
      event,
    );

    const tampered = got.body.replace('"livemode":false', '"livemode":true');
    expect(tampered).not.toBe(got.body);
    expect(await refusal(verifyWebhook(tampered, got.headers, hook.secret!))).toBe("signature_mismatch");
    expect(await refusal(verifyWebhook(got.body, got.headers, "whsec_not_the_secret_of_this_subscription_000"))).toBe(
      "signature_mismatch",
    );

    // Replayed 301 s after it was signed: refused under the default tolerance of 300 s, accepted within it.
    const t = Number(/t=(\d+)/.exec(got.headers["service-signature"]!)![1]);
    expect(await refusal(verifyWebhook(got.body, got.headers, hook.secret!, { now: (t + 301) * 1000 }))).toBe(
      "timestamp_outside_tolerance",
    );
    expect(await refusal(verifyWebhook(got.body, got.headers, hook.secret!, { now: (t + 299) * 1000 }))).toBe(
      "accepted",
    );
    // A delivery the app signed ten minutes ago (an attempt at that time), verified now.
    const old = await deliverTest(hook.id, new Date(Date.now() - 600_000));
    expect(await refusal(verifyWebhook(old.body, old.headers, hook.secret!))).toBe("timestamp_outside_tolerance");
    expect(await refusal(verifyWebhook(old.body, old.headers, hook.secret!, { toleranceSec: 900 }))).toBe("accepted");
  });

  it("across a rotation: during the window either secret verifies; after it only the new one", async () => {
    const hook = await sdk.webhooks.create({ url: rx.url, events: ["conversation.*"] });
    const first = hook.secret!;
    const rotated = await sdk.webhooks.rotateSecret(hook.id);
    const second = rotated.secret!;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(rotated.previous_secret_expires_at).not.toBeNull();

    const during = await deliverTest(hook.id);
    expect(during.headers["service-signature"]!.match(/v1=/g)).toHaveLength(2);
    for (const secrets of [[first], [second], [first, second], [second, first]]) {
      expect(await refusal(verifyWebhook(during.body, during.headers, secrets)), `secrets ${secrets.length}`).toBe(
        "accepted",
      );
    }
    expect(
      await refusal(verifyWebhook(during.body, during.headers, ["whsec_neither_of_them_0000000000000000000000"])),
    ).toBe("signature_mismatch");

    // An attempt after the window closes carries one v1, made with the new secret.
    const after = new Date(Date.parse(rotated.previous_secret_expires_at!) + 60_000);
    const late = await deliverTest(hook.id, after);
    expect(late.headers["service-signature"]!.match(/v1=/g)).toHaveLength(1);
    const at = { now: after };
    expect(await refusal(verifyWebhook(late.body, late.headers, first, at))).toBe("signature_mismatch");
    expect(await refusal(verifyWebhook(late.body, late.headers, second, at))).toBe("accepted");
    expect(await refusal(verifyWebhook(late.body, late.headers, [first, second], at))).toBe("accepted");
  });
});
