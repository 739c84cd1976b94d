import type { Db } from "@/db/client";
import { products } from "@/db/schema";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";

/** A bench tenant's ids and its API key (the full secret, for `Authorization: Bearer`). */
export interface BenchTenant {
  tenantId: string;
  integrationId: string;
  key: string;
  keyId: string;
}

/**
 * A tenant as the bench's API scenarios use it: an integration with every scope, a live key, 1,000,000.00
 * RUB on the wallet and 50 cards (priced, `sort` 0-4, every other one AI-enabled), on `mainDomain`
 * bench.example. Shared by `npm run bench` (bench/run.ts) and bench/pipeline-alone.ts, so both measure the
 * same cards page.
 */
export async function seedBenchTenant(db: Db, name: string, ipAllowlist?: string[]): Promise<BenchTenant> {
  const t = await createTenant(db, { name, mainDomain: "bench.example" });
  const i = await createIntegration(db, t.id, {
    name: "Bench",
    scopes: [...SCOPES],
    piiCountry: "RU",
    legalBasis: "contract",
  });
  const k = await issueKey(db, { integrationId: i.id, ipAllowlist });
  await changeBalance(db, { tenantId: t.id, amountMinor: 100_000_000n, kind: "credit", actor: "system" });
  await db.insert(products).values(
    Array.from({ length: 50 }, (_, n) => ({
      tenantId: t.id,
      name: `Card ${n}`,
      code: `card-${n}`,
      priceMinor: 100_000n + BigInt(n),
      currency: "RUB",
      sort: n % 5,
      aiEnabled: n % 2 === 0,
    })),
  );
  return { tenantId: t.id, integrationId: i.id, key: k.key, keyId: k.keyId };
}
