import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { tenants } from "@/db/schema";
import { makeTenant, type TenantFixture } from "./fixtures";
import { sandboxKey } from "./sandbox-key";

/** A tenant in test mode (issue 69): its live key, and a `test` key whose actor lives in the sandbox. */
export interface SandboxTenantFixture extends TenantFixture {
  /** A `test` key of the same integration (allowlist 127.0.0.1): its actor has `livemode` false. */
  testKey: string;
}

/**
 * A tenant as {@link makeTenant} makes it, in test mode ({@link sandboxKey}), whose sandbox is marked seeded
 * (`sandbox_seeded_at`): the first use of the test key adds no sample data, so the sandbox holds only the
 * rows the test writes, and a test can count them exactly.
 */
export async function makeEmptySandboxTenant(
  db: Db,
  opts: Parameters<typeof makeTenant>[1] = {},
): Promise<SandboxTenantFixture> {
  const t = await makeTenant(db, opts);
  const testKey = await sandboxKey(db, t);
  await db.update(tenants).set({ sandboxSeededAt: new Date() }).where(eq(tenants.id, t.tenantId));
  return { ...t, testKey };
}
