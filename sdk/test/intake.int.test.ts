import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isApiError, type PlatformClient } from "@platform/sdk";
import { setPreview } from "@/server/services/tenants/previews";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// The SDK's `intake` (preview `event-intake`, issue 74) against the app (in-process API, every answer checked
// against the preview's document): a batch answered event by event, a repeat answered `duplicate`, and a
// tenant without the preview told the route does not exist.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let client: PlatformClient;
let off: PlatformClient;

beforeAll(async () => {
  db = await openTestDatabase();
  const t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "event-intake", true);
  const o = await makeTenant(db.db);
  const baseUrl = `${TEST_ORIGIN}/api/public/v1`;
  client = createClient({ baseUrl, apiKey: t.key, fetch: inProcessFetch({ preview: "event-intake" }) });
  off = createClient({ baseUrl, apiKey: o.key, fetch: inProcessFetch({ preview: "event-intake" }) });
});
afterAll(async () => db.drop());

describe("client.intake", () => {
  it("sends a batch and reads a verdict per event; a repeat is duplicate", async () => {
    const occurred_at = new Date().toISOString();
    const batch = [
      { event_id: "sdk-1", type: "page_view", occurred_at, page: { url: "https://shop.example.ru/" } },
      { event_id: "sdk-2", type: "purchase", occurred_at, value: { amount: "990.00", currency: "RUB" } },
      { event_id: "sdk-3", type: "page_view", occurred_at, order_id: "o-1" },
    ];
    const first = await client.intake.send(batch);
    expect(first.results.map((r) => r.status)).toEqual(["accepted", "accepted", "rejected"]);
    expect(first.results[2]!.errors).toEqual([expect.objectContaining({ field: "/events/2/order_id" })]);
    const again = await client.intake.send(batch.slice(0, 2));
    expect(again.results.map((r) => r.status)).toEqual(["duplicate", "duplicate"]);
  });

  it("answers a tenant without the preview with not_found", async () => {
    const err = await off.intake
      .send([{ event_id: "x", type: "page_view", occurred_at: new Date().toISOString() }])
      .catch((e: unknown) => e);
    expect(isApiError(err, "not_found")).toBe(true);
  });
});
