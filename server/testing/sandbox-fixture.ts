import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { tenants } from "@/db/schema";
import { issueKey } from "@/server/services/keys/keys";
import { setPreview } from "@/server/services/tenants/previews";
import { makeTenant, type TenantFixture } from "./fixtures";

/** A tenant with the preview `test-mode` (issue 69): its live key, and a test key that lives in the sandbox. */
export interface SandboxTenantFixture extends TenantFixture {
  /** A `test` key of the same integration: its actor has `livemode` false (server/services/access/authenticate.ts). */
  testKey: string;
  /** Public `key_id` of {@link testKey}. */
  testKeyId: string;
}

/**
 * A tenant as {@link makeTenant} makes it, with the preview `test-mode` on and a `test` key of its integration
 * (allowed from 127.0.0.1, as the live key). The sandbox is marked seeded (`sandbox_seeded_at`), so the
 * first use of the test key adds no sample data and the sandbox holds only what the test writes.
 */
export async function makeSandboxTenant(
  db: Db,
  opts: Parameters<typeof makeTenant>[1] = {},
): Promise<SandboxTenantFixture> {
  const t = await makeTenant(db, opts);
  await setPreview(db, t.tenantId, "test-mode", true);
  await db.update(tenants).set({ sandboxSeededAt: new Date() }).where(eq(tenants.id, t.tenantId));
  const k = await issueKey(db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
  return { ...t, testKey: k.key, testKeyId: k.keyId };
}
