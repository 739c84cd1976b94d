import { randomBytes } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { leads, tenants } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import { insertSampleCards } from "./sample-cards";
import { seedTenantData } from "./seed-data";
import { SCOPES } from "@/server/schemas/scopes";
import { seedSampleAnalytics } from "@/server/services/analytics/sample-analytics";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { createStaffMember } from "@/server/services/tenants/staff";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";

/** What `npm run demo` prints and writes to `.data/demo.json`. */
export interface DemoInfo {
  baseUrl: string;
  consoleUrl: string;
  tenantId: string;
  integrationId: string;
  apiKey: string;
  staff: { email: string; password: string };
}

/** Demo wallet balance, RUB minor units (50,000.00 RUB). */
const DEMO_BALANCE_MINOR = 5_000_000n;

/**
 * Seeds the demo tenant: a staff owner with every right, an integration holding every scope with a live
 * key limited to loopback addresses (narrow, so the RU personal-data rule lets local curl read leads and
 * conversations), a few cards and a funded wallet; and sample analytics (30 days of rollups and a few
 * received events, server/services/analytics/sample-analytics.ts) for the console's Analytics page.
 */
export async function seedDemo(db: Db, origin: string): Promise<DemoInfo> {
  const tenant = await createTenant(db, { name: "Demo Shop", cell: "ru", mainDomain: "demo-shop.example" });
  const password = randomBytes(9).toString("base64url");
  const email = "owner@demo-shop.example";
  const { staffUserId } = await createStaffMember(db, { tenantId: tenant.id, email, password, name: "Demo Owner" });
  const integration = await createIntegration(db, tenant.id, {
    name: "Demo CRM sync",
    scopes: [...SCOPES],
    role: "full",
    ownerStaffUserId: staffUserId,
    piiCountry: "RU",
    legalBasis: "Contract with the data subject (152-FZ art. 6 p. 1.5)",
  });
  const key = await issueKey(db, { integrationId: integration.id, mode: "live", ipAllowlist: ["127.0.0.1", "::1"] });
  await changeBalance(db, {
    tenantId: tenant.id,
    amountMinor: DEMO_BALANCE_MINOR,
    kind: "credit",
    actor: "system",
    description: "Demo balance",
  });

  await insertSampleCards(db, { tenantId: tenant.id, livemode: true });
  // Conversations, messages, leads, articles, strategist and dashboard data at a small scale.
  await seedTenantData(db, tenant.id, 2, integration.id);
  const someLeads = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.tenantId, tenant.id), eq(leads.livemode, true)))
    .orderBy(asc(leads.createdAt), asc(leads.id))
    .limit(2);
  await seedSampleAnalytics(
    db,
    { tenantId: tenant.id, livemode: true },
    nowMs(),
    someLeads.map((l) => l.id),
  );
  return {
    baseUrl: `${origin}/api/public/v1`,
    consoleUrl: `${origin}/console`,
    tenantId: tenant.id,
    integrationId: integration.id,
    apiKey: key.key,
    staff: { email, password },
  };
}

/** True when the demo tenant of a saved `demo.json` still exists in this database. */
export async function demoExists(db: Db, info: DemoInfo | null): Promise<boolean> {
  if (!info) return false;
  const [t] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, info.tenantId));
  return Boolean(t);
}
