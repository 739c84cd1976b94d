import { and, asc, desc, eq, isNotNull, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, articles, conversations, integrations, leads, memberships, messages, tenants } from "@/db/schema";
import { notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import { prng } from "../seed/prng";
import { insertSampleCards } from "../seed/sample-cards";
import { seedTenantData } from "../seed/seed-data";
import { seedStrategistSession } from "../seed/seed-strategist";
import { DAY_MS, type SandboxContext, type SandboxIntegration, type SandboxSamples } from "./sample-context";
import { seedSandboxAnalytics } from "./sample-analytics";
import { seedSandboxCrm } from "./sample-crm";
import { seedSandboxGeneration } from "./sample-generation";
import { seedSandboxMoney } from "./sample-money";
import { seedSandboxSites } from "./sample-sites";
import { seedSandboxStrategistTurns } from "./sample-strategist";
import { seedSandboxTraffic } from "./sample-traffic";
import { clearSandbox } from "./sandbox-tables";

/**
 * Integrations of a tenant that get sample activity of their own (operations, a subscription and its
 * deliveries, requests, a strategist session), oldest first: what a key sees of those is its own
 * integration's. More would only lengthen the first test request of a tenant with many integrations.
 */
export const MAX_SAMPLE_INTEGRATIONS = 10;

/** Scale of the sample records (server/services/seed/seed-data.ts): 8 conversations, 200 messages, 20 leads. */
const SAMPLE_SCALE = 2;

/** What `sandbox:reset` and the console's "Reset test data" answer. */
export type SandboxReset = { tenant_id: string; livemode: false; reset: true };

/**
 * Seeds the tenant's sandbox (test mode, issue 69 item 2) unless it was seeded before: in one
 * transaction, `tenants.sandbox_seeded_at` is set only where it is still null, and only the transaction
 * that set it writes the sample data, so concurrent first requests seed exactly once (the others wait on
 * the tenant row until the seeding commits, then find it set and see the data). Called by the public
 * API for the first request of a test key of a tenant with the preview `test-mode` (the key cache row
 * carries `sandbox_seeded_at`, so later requests cost nothing); any sandbox rows already there stay.
 * Switching the preview on (`preview:set`) does not seed: the flag stays a cheap switch, only tenants that
 * use test mode get sample data, and it is made with the integrations and test keys that exist by then.
 * Every row written has `livemode` false; see {@link fillSandbox} for what is written.
 * @returns true when this call seeded, false when the sandbox was already seeded
 * @throws ApiError `not_found` when there is no such tenant
 */
export async function seedSandbox(db: Db, tenantId: string): Promise<boolean> {
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const [claimed] = await tx
      .update(tenants)
      .set({ sandboxSeededAt: sql`now()` })
      .where(and(eq(tenants.id, tenantId), isNull(tenants.sandboxSeededAt)))
      .returning({ id: tenants.id });
    if (!claimed) {
      const [exists] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
      if (!exists) throw notFound("Tenant");
      return false;
    }
    await fillSandbox(tx, tenantId);
    return true;
  });
}

/**
 * Empties the tenant's sandbox and seeds it again, in one transaction (`npm run admin -- sandbox:reset`,
 * the console's "Reset test data"): every row with `livemode` false of the tenant is deleted
 * (server/services/sandbox/sandbox-tables.ts, children first), the sample data written anew and
 * `tenants.sandbox_seeded_at` set to now. No live row is changed. Serialized with {@link seedSandbox} and
 * other resets on the tenant row.
 * @returns `{tenant_id, livemode: false, reset: true}`
 * @throws ApiError `not_found` when there is no such tenant
 */
export async function resetSandbox(db: Db, tenantId: string): Promise<SandboxReset> {
  await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const [tenant] = await tx
      .update(tenants)
      .set({ sandboxSeededAt: sql`now()` })
      .where(eq(tenants.id, tenantId))
      .returning({ id: tenants.id });
    if (!tenant) throw notFound("Tenant");
    await clearSandbox(tx, tenantId);
    await fillSandbox(tx, tenantId);
  });
  return { tenant_id: tenantId, livemode: false, reset: true };
}

/**
 * Writes the sample data of a sandbox inside the caller's transaction, every row with `livemode` false:
 * the sample cards, the demo seed's records at a small scale (conversations with messages, notes,
 * tombstones and image attachments; contacts; leads in every status; articles in several formats;
 * strategist reports, topics, and sessions with actions in every status; every dashboard block), dated
 * from 13 days before now so that the daily reports end today, plus 30 days of activity per sample
 * integration (sample-money.ts: operations, spend, payments, the 10,000.00 RUB wallet and its ledger;
 * sample-traffic.ts: a paused subscription, events and deliveries, requests and disclosures, and their
 * usage counts), and a week of sample intake events with their analytics rollups (sample-analytics.ts).
 */
async function fillSandbox(tx: Db, tenantId: string): Promise<void> {
  const now = nowMs();
  const owner = { tenantId, livemode: false as const };
  const start = Math.floor(now / DAY_MS) * DAY_MS - 13 * DAY_MS;
  const sampleIntegrations = await integrationsOf(tx, tenantId);
  await insertSampleCards(tx, owner);
  await seedTenantData(tx, tenantId, SAMPLE_SCALE, sampleIntegrations[0]?.id, { livemode: false, start });
  // The demo seed makes one integration's strategist session; the others get theirs, so every sample
  // integration's key lists actions.
  for (const i of sampleIntegrations.slice(1))
    await seedStrategistSession(tx, owner, start, { integrationId: i.id }, "Propose topic");
  const [member] = await tx
    .select({ id: memberships.staffUserId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.active, true)))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  const ctx: SandboxContext = {
    owner,
    now,
    r: prng(now % 2_147_483_647),
    integrations: sampleIntegrations,
    staffUserId: member?.id ?? null,
    samples: await samplesOf(tx, tenantId),
  };
  await seedSandboxMoney(tx, ctx);
  await seedSandboxTraffic(tx, ctx);
  await seedSandboxCrm(tx, ctx);
  await seedSandboxSites(tx, ctx);
  await seedSandboxGeneration(tx, ctx);
  await seedSandboxStrategistTurns(tx, ctx);
  await seedSandboxAnalytics(tx, ctx);
}

/** The tenant's sample integrations (not revoked, oldest first) with each one's newest usable test key. */
async function integrationsOf(tx: Db, tenantId: string): Promise<SandboxIntegration[]> {
  const rows = await tx
    .select({ id: integrations.id })
    .from(integrations)
    .where(and(eq(integrations.tenantId, tenantId), ne(integrations.status, "revoked")))
    .orderBy(asc(integrations.createdAt), asc(integrations.id))
    .limit(MAX_SAMPLE_INTEGRATIONS);
  const keys = await tx
    .select({ id: apiKeys.id, keyId: apiKeys.keyId, integrationId: apiKeys.integrationId })
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.mode, "test"), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt));
  return rows.map((i) => {
    const key = keys.find((k) => k.integrationId === i.id);
    return { id: i.id, testKey: key ? { id: key.id, keyId: key.keyId } : null };
  });
}

/** Ids of the sandbox's records (customer conversations only: the API never shows the others). */
async function samplesOf(tx: Db, tenantId: string): Promise<SandboxSamples> {
  const conv = await tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(
      and(eq(conversations.tenantId, tenantId), eq(conversations.livemode, false), eq(conversations.kind, "customer")),
    )
    .orderBy(asc(conversations.createdAt))
    .limit(20);
  const conversationIds = conv.map((c) => c.id);
  const visible = (sender: string) =>
    and(
      eq(messages.tenantId, tenantId),
      eq(messages.livemode, false),
      eq(messages.sender, sender),
      eq(messages.internal, false),
      isNull(messages.deletedAt),
      sql`${messages.conversationId} in (select ${conversations.id} from ${conversations} where ${conversations.tenantId} = ${tenantId} and ${conversations.livemode} = false and ${conversations.kind} = 'customer')`,
    );
  const customerMessages = await tx
    .select({ id: messages.id, conversationId: messages.conversationId })
    .from(messages)
    .where(visible("customer"))
    .orderBy(asc(messages.createdAt))
    .limit(60);
  const ai = await tx
    .select({ id: messages.id })
    .from(messages)
    .where(visible("ai"))
    .orderBy(asc(messages.createdAt))
    .limit(60);
  const leadRows = await tx
    .select({ id: leads.id, contactId: leads.contactId, conversationId: leads.conversationId, version: leads.version })
    .from(leads)
    .where(and(eq(leads.tenantId, tenantId), eq(leads.livemode, false), isNotNull(leads.contactId)))
    .orderBy(asc(leads.createdAt))
    .limit(30);
  const art = await tx
    .select({ id: articles.id })
    .from(articles)
    .where(and(eq(articles.tenantId, tenantId), eq(articles.livemode, false), eq(articles.blog, "tenant")))
    .orderBy(asc(articles.createdAt))
    .limit(10);
  return {
    conversationIds,
    customerMessages,
    aiMessageIds: ai.map((m) => m.id),
    leads: leadRows,
    articleIds: art.map((a) => a.id),
  };
}
