import { and, count, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import {
  disclosures,
  integrationDailySpend,
  products,
  requestLog,
  tenants,
  walletLedger,
  wallets,
  webhookDeliveries,
  webhookSubscriptions,
} from "@/db/schema";
import { ApiError } from "@/server/errors";
import { rollupIntake } from "@/server/services/analytics/rollup";
import { createCard } from "@/server/services/cards/cards";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { resolveWebhookOwner } from "@/server/services/webhooks/owner";
import { sendTestEvent } from "@/server/services/webhooks/subscriptions";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { readRollups, recountFromRaw } from "@/server/testing/intake-rollups";
import { liveChecksums, sandboxChecksums } from "@/server/testing/live-checksum";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { SANDBOX_TABLES } from "./sandbox-tables";
import { SANDBOX_BALANCE_MINOR } from "./sample-money";
import { SANDBOX_WEBHOOK_URL } from "./sample-traffic";
import { resetSandbox, seedSandbox } from "./seed-sandbox";

// The tenant's sandbox (issue 69 item 2) at the service level, on PGlite and (DATABASE_URL) PostgreSQL:
// seeding fills every sandbox table of the tenant and nothing live, exactly once whoever comes first, and
// a reset replaces the sandbox without changing one live row, of this tenant or any other.

let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase();
}, 60_000);
afterAll(async () => db.drop());

/** Sandbox rows of the tenant in each table of SANDBOX_TABLES. */
async function sandboxCounts(tenantId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of SANDBOX_TABLES) {
    const [row] = await db.db.select({ n: count() }).from(t.table).where(t.sandboxRows(tenantId));
    out[t.name] = row.n;
  }
  return out;
}

/**
 * A tenant with live data of every kind the sandbox also holds: the seeder's records, a card, a second
 * integration, a test key, a live subscription whose `webhook.test` event (in its subscription's mode; its
 * envelope says `livemode` false) has a live delivery, live requests, disclosures and spend of today.
 */
async function liveTenant(): Promise<TenantFixture & { test: { keyId: string } }> {
  const t = await makeTenant(db.db);
  const test = await issueKey(db.db, { integrationId: t.integrationId, mode: "test" });
  await createIntegration(db.db, t.tenantId, { name: "Second", scopes: ["cards:read"] });
  await seedTenantData(db.db, t.tenantId, 1, t.integrationId);
  await createCard(db.db, { tenantId: t.tenantId, via: "operator" }, { code: "live-socks", name: "Live socks" });
  const [sub] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: "https://crm.example.com/hooks",
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  const owner = await resolveWebhookOwner(db.db, { tenantId: t.tenantId, via: "operator" }, t.integrationId);
  await sendTestEvent(db.db, owner, sub.id);
  await db.db.insert(requestLog).values({
    createdAt: new Date(),
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    method: "GET",
    path: "/cards",
    status: 200,
    latencyMs: 3,
    requestId: "req_live",
  });
  await db.db.insert(disclosures).values({
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    route: "GET /leads",
    resourceType: "lead",
    resourceIds: ["x"],
    requestId: "req_live",
  });
  await db.db.insert(integrationDailySpend).values({
    integrationId: t.integrationId,
    day: new Date().toISOString().slice(0, 10),
    usedMinor: 77n,
  });
  return { ...t, test };
}

describe("the list of sandbox tables", () => {
  it("names every table that has a livemode column, each once", async () => {
    const rows = rowsOf<{ name: string }>(
      await db.db.execute(sql`select table_name as name from information_schema.columns
        where table_schema = current_schema() and column_name = 'livemode'
          and not exists (select 1 from pg_class p where p.relname = table_name and p.relispartition) order by 1`),
    );
    const listed = SANDBOX_TABLES.map((t) => t.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(rows.map((r) => r.name));
  });
});

describe("seedSandbox", () => {
  it("fills every sandbox table of the tenant, stamps the tenant, and changes no live row", async () => {
    const t = await liveTenant();
    const other = await makeTenant(db.db);
    const live = await liveChecksums(db.db);
    expect(await seedSandbox(db.db, t.tenantId)).toBe(true);

    const counts = await sandboxCounts(t.tenantId);
    for (const [table, n] of Object.entries(counts)) {
      // Idempotency records are a request's own: none is seeded.
      if (table === "idempotency_records") expect(n, table).toBe(0);
      else expect(n, table).toBeGreaterThan(0);
    }
    expect(await liveChecksums(db.db)).toEqual(live);
    // The sample's analytics are its events' (issue 74): rolled up in the seeding, never again by the job.
    expect(await readRollups(db.db)).toEqual(await recountFromRaw(db.db));
    expect((await rollupIntake(db.db)).events).toBe(0);
    expect(Object.values(await sandboxCounts(other.tenantId)).every((n) => n === 0)).toBe(true);
    const [tenant] = await db.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expect(tenant.sandboxSeededAt).toBeInstanceOf(Date);
  });

  it("gives the sandbox a wallet of 10,000.00 RUB whose ledger adds up, and 30 days of activity", async () => {
    const t = await liveTenant();
    await seedSandbox(db.db, t.tenantId);
    const [w] = await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, false)));
    expect(w).toMatchObject({ balanceMinor: SANDBOX_BALANCE_MINOR, heldMinor: 0n, blocked: false });
    expect(SANDBOX_BALANCE_MINOR).toBe(1_000_000n);
    const [sums] = await db.db
      .select({
        amount: sql<string>`sum(${walletLedger.amountMinor})::text`,
        hold: sql<string>`sum(${walletLedger.holdMinor})::text`,
        charges: sql<number>`(count(*) filter (where ${walletLedger.kind} = 'charge'))::int`,
      })
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, false)));
    expect(sums).toMatchObject({ amount: "1000000", hold: "0" });
    expect(sums.charges).toBeGreaterThan(30);
    // The last ledger row's balance is the wallet's.
    const [last] = await db.db
      .select({ after: walletLedger.balanceAfterMinor })
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, false)))
      .orderBy(sql`${walletLedger.createdAt} desc`)
      .limit(1);
    expect(last.after).toBe(SANDBOX_BALANCE_MINOR);

    // Every one of the last 30 UTC days has requests, spend and deliveries (the usage charts).
    const days = async (table: "request_log" | "wallet_ledger" | "webhook_deliveries", extra = sql``) =>
      rowsOf<{ n: number }>(
        await db.db.execute(
          sql`select count(distinct to_char(created_at at time zone 'UTC', 'YYYY-MM-DD'))::int as n
              from ${sql.identifier(table)} where tenant_id = ${t.tenantId} and not livemode
                and created_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '29 days'
                ${extra}`,
        ),
      )[0].n;
    expect(await days("request_log")).toBe(30);
    expect(await days("wallet_ledger", sql`and kind = 'charge'`)).toBe(30);
    expect(await days("webhook_deliveries")).toBe(30);
    // The usage charts' daily counts (usage_daily, issue 74) are the sample requests'.
    const [counted] = rowsOf<{ logged: number; charted: number }>(
      await db.db.execute(sql`select
          (select count(*)::int from request_log where tenant_id = ${t.tenantId} and not livemode) as logged,
          (select sum(requests)::int from usage_daily where tenant_id = ${t.tenantId} and not livemode) as charted`),
    );
    expect(counted.charted).toBe(counted.logged);
    const states = await db.db
      .select({ state: webhookDeliveries.state })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.tenantId, t.tenantId), eq(webhookDeliveries.livemode, false)));
    expect(new Set(states.map((s) => s.state))).toEqual(new Set(["delivered", "failed", "dead"]));
    // Nothing of the sample is due to be sent: the subscriptions are paused, at a name that never resolves.
    const subs = await db.db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.tenantId, t.tenantId), eq(webhookSubscriptions.livemode, false)));
    expect(subs).toHaveLength(2);
    expect(subs.every((s) => s.status === "paused" && s.url === SANDBOX_WEBHOOK_URL)).toBe(true);
    const due = rowsOf<{ n: number }>(
      await db.db.execute(
        sql`select count(*)::int as n from webhook_deliveries where tenant_id = ${t.tenantId} and not livemode
            and next_attempt_at is not null`,
      ),
    )[0].n;
    expect(due).toBe(0);
    // The sample requests name the integration's test key.
    const keys = await db.db
      .selectDistinct({ keyId: requestLog.keyId })
      .from(requestLog)
      .where(and(eq(requestLog.tenantId, t.tenantId), eq(requestLog.livemode, false)));
    expect(keys.map((k) => k.keyId)).toContain(t.test.keyId);
  });

  it("seeds once under concurrent first use; later calls change nothing", async () => {
    const t = await liveTenant();
    const results = await Promise.all(Array.from({ length: 6 }, () => seedSandbox(db.db, t.tenantId)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const once = await sandboxChecksums(db.db, t.tenantId);
    expect(await seedSandbox(db.db, t.tenantId)).toBe(false);
    expect(await sandboxChecksums(db.db, t.tenantId)).toEqual(once);
    const cards = await db.db
      .select({ n: count() })
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.livemode, false)));
    expect(cards[0].n).toBe(3);
  });

  it("keeps sandbox rows written before the seeding, and credits a sandbox wallet that existed", async () => {
    const t = await makeTenant(db.db);
    await db.db.insert(products).values({ tenantId: t.tenantId, livemode: false, name: "Mine", code: "gift-card" });
    await db.db.insert(wallets).values({ tenantId: t.tenantId, livemode: false, balanceMinor: 500n });
    await db.db.insert(walletLedger).values({
      tenantId: t.tenantId,
      livemode: false,
      kind: "credit",
      amountMinor: 500n,
      balanceAfterMinor: 500n,
      actor: "system",
    });
    await seedSandbox(db.db, t.tenantId);
    const [mine] = await db.db
      .select({ name: products.name })
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.livemode, false), eq(products.code, "gift-card")));
    expect(mine.name).toBe("Mine");
    const [w] = await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, false)));
    expect(w.balanceMinor).toBe(SANDBOX_BALANCE_MINOR + 500n);
    const [sum] = await db.db
      .select({ amount: sql<string>`sum(${walletLedger.amountMinor})::text` })
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, false)));
    expect(sum.amount).toBe((SANDBOX_BALANCE_MINOR + 500n).toString());
  });

  it("answers not_found for an unknown tenant", async () => {
    await expect(seedSandbox(db.db, crypto.randomUUID())).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("resetSandbox", () => {
  it("replaces the sandbox and changes no live row, nor another tenant's sandbox", async () => {
    const t = await liveTenant();
    const other = await liveTenant();
    await seedSandbox(db.db, t.tenantId);
    await seedSandbox(db.db, other.tenantId);
    // Something the integrator made in the sandbox, which the reset must take away.
    await db.db.insert(products).values({ tenantId: t.tenantId, livemode: false, name: "Test card", code: "mine" });
    const before = await sandboxChecksums(db.db, t.tenantId);
    const live = await liveChecksums(db.db);
    const otherSandbox = await sandboxChecksums(db.db, other.tenantId);
    const [stamp] = await db.db.select().from(tenants).where(eq(tenants.id, t.tenantId));

    expect(await resetSandbox(db.db, t.tenantId)).toEqual({ tenant_id: t.tenantId, livemode: false, reset: true });

    expect(await liveChecksums(db.db)).toEqual(live);
    expect(await sandboxChecksums(db.db, other.tenantId)).toEqual(otherSandbox);
    const after = await sandboxChecksums(db.db, t.tenantId);
    // Every table's sandbox rows are new (dashboard blocks, which have no id or time, come back the same).
    for (const table of Object.keys(after))
      if (table !== "idempotency_records" && table !== "dashboard_blocks")
        expect(after[table], table).not.toBe(before[table]);
    const mine = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.livemode, false), eq(products.code, "mine")));
    expect(mine).toEqual([]);
    const counts = await sandboxCounts(t.tenantId);
    expect(counts.products).toBe(3);
    expect(counts.wallets).toBe(1);
    const [w] = await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, false)));
    expect(w.balanceMinor).toBe(SANDBOX_BALANCE_MINOR);
    const [restamped] = await db.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expect(restamped.sandboxSeededAt!.getTime()).toBeGreaterThanOrEqual(stamp.sandboxSeededAt!.getTime());
  });

  it("seeds a sandbox never seeded, and refuses an unknown tenant with not_found", async () => {
    const t = await makeTenant(db.db);
    await resetSandbox(db.db, t.tenantId);
    expect((await sandboxCounts(t.tenantId)).leads).toBeGreaterThan(0);
    const err = await resetSandbox(db.db, crypto.randomUUID()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "not_found", message: "Tenant was not found." });
  });
});
