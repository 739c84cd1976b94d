import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships, staffUsers } from "@/db/schema";
import type { Cell } from "@/server/env";
import { SCOPES, type Right } from "@/server/schemas/scopes";
import { createIntegration, type IntegrationCreate } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";

/** A tenant with an integration and a live key, as most API tests need. */
export interface TenantFixture {
  tenantId: string;
  integrationId: string;
  channelId: string;
  key: string;
  keyId: string;
}

/**
 * Creates a tenant (main domain `shop.example.ru`), a funded wallet (1,000.00 RUB by default), an
 * integration holding `scopes` (all by default, RU personal-data settings included) and one key.
 */
export async function makeTenant(
  db: Db,
  opts: {
    cell?: Cell;
    scopes?: string[];
    integration?: Partial<IntegrationCreate>;
    key?: { mode?: string; expiresAt?: Date; ipAllowlist?: string[] | null };
    balanceMinor?: bigint;
    mainDomain?: string | null;
  } = {},
): Promise<TenantFixture> {
  const t = await createTenant(db, {
    name: "Test shop",
    cell: opts.cell ?? "ru",
    mainDomain: opts.mainDomain === undefined ? "shop.example.ru" : opts.mainDomain,
  });
  const i = await createIntegration(db, t.id, {
    name: "Test integration",
    scopes: opts.scopes ?? [...SCOPES],
    piiCountry: "RU",
    legalBasis: "contract",
    ...opts.integration,
  });
  const k = await issueKey(db, {
    integrationId: i.id,
    mode: opts.key?.mode,
    expiresAt: opts.key?.expiresAt,
    ipAllowlist: opts.key?.ipAllowlist ?? ["127.0.0.1"],
  });
  const balance = opts.balanceMinor ?? 100_000n;
  if (balance !== 0n)
    await changeBalance(db, { tenantId: t.id, amountMinor: balance, kind: "credit", actor: "system" });
  return { tenantId: t.id, integrationId: i.id, channelId: i.channelId, key: k.key, keyId: k.keyId };
}

/** Adds a staff user (without a password) with a membership; for owner-rights tests. */
export async function makeStaff(db: Db, tenantId: string, rights: Right[], active = true): Promise<string> {
  const id = crypto.randomUUID();
  await db.insert(staffUsers).values({ id, name: "Staff", email: `${id}@example.com` });
  await db.insert(memberships).values({ tenantId, staffUserId: id, rights, active });
  return id;
}

/** Sets a membership's rights or access. */
export async function setMembership(
  db: Db,
  tenantId: string,
  staffUserId: string,
  patch: { rights?: Right[]; active?: boolean },
): Promise<void> {
  await db.update(memberships).set(patch).where(eq(memberships.staffUserId, staffUserId));
  void tenantId;
}
