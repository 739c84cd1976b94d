import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, requestLog, walletLedger, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import type { StaffActor } from "../actor";
import { usageSummary } from "./usage";

// Issue 69 "Console": usage charts and billing never count test requests; in the console's Test mode the
// sandbox's own usage is shown, and never a live row.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let s: SandboxTenantFixture;

const staff = (livemode?: boolean): StaffActor => ({
  via: "console",
  tenantId: s.tenantId,
  staffUserId: "staff-1",
  rights: [],
  ...(livemode === undefined ? {} : { livemode }),
});

/** Requests, spend and deliveries of one mode, today: `n` requests (200), a charge of `minor`, `n` delivered deliveries. */
async function activity(livemode: boolean, n: number, minor: bigint): Promise<void> {
  const base = { tenantId: s.tenantId, livemode, integrationId: s.integrationId };
  await db.db.insert(requestLog).values(
    Array.from({ length: n }, (_, i) => ({
      ...base,
      createdAt: new Date(),
      method: "GET",
      path: "/articles",
      status: 200,
      latencyMs: 1,
      requestId: `req_${livemode}_${i}`,
    })),
  );
  await db.db.insert(walletLedger).values({
    ...base,
    kind: "charge",
    amountMinor: -minor,
    balanceAfterMinor: 0n,
    actor: `integration:${s.integrationId}`,
  });
  const [sub] = await db.db
    .insert(webhookSubscriptions)
    .values({
      ...base,
      url: "https://hooks.example.com/in",
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning();
  const [ev] = await db.db
    .insert(events)
    .values({
      tenantId: s.tenantId,
      livemode,
      type: "lead.created",
      data: { lead_id: crypto.randomUUID(), version: 1 },
    })
    .returning();
  for (let i = 0; i < n; i++)
    await db.db.insert(webhookDeliveries).values({
      tenantId: s.tenantId,
      livemode,
      subscriptionId: sub!.id,
      eventId: ev!.id,
      eventType: "lead.created",
      state: "delivered",
    });
}

beforeAll(async () => {
  db = await openTestDatabase();
  s = await makeEmptySandboxTenant(db.db);
  await activity(true, 2, 1_250n);
  await activity(false, 5, 99_900n);
});
afterAll(async () => db.drop());

describe("usageSummary", () => {
  it("counts only live requests, spend and deliveries outside Test mode", async () => {
    for (const actor of [staff(), staff(true)]) {
      const u = await usageSummary(db.db, actor);
      expect(u.requests.at(-1)).toMatchObject({ "2xx": 2, byIntegration: { [s.integrationId]: 2 } });
      expect(u.spend.at(-1)).toMatchObject({ minor: "1250", rub: "12.50" });
      expect(u.deliveries.at(-1)).toMatchObject({ delivered: 2 });
    }
  });

  it("shows the sandbox's own usage in Test mode, without a live row", async () => {
    const u = await usageSummary(db.db, staff(false));
    expect(u.requests.at(-1)).toMatchObject({ "2xx": 5, byIntegration: { [s.integrationId]: 5 } });
    expect(u.spend.at(-1)).toMatchObject({ minor: "99900", rub: "999.00" });
    expect(u.deliveries.at(-1)).toMatchObject({ delivered: 5 });
  });
});
