import type { Db } from "@/db/client";
import { issueKey } from "@/server/services/keys/keys";
import { setPreview } from "@/server/services/tenants/previews";
import type { TenantFixture } from "./fixtures";

/**
 * Puts a fixture's tenant into test mode (preview `test-mode` on, issue 69) and issues a `test` key for its
 * integration (allowlist 127.0.0.1, as makeTenant's key): that key's actor lives in the tenant's sandbox
 * (`livemode` false), while the fixture's own live key keeps working in live data.
 * @returns the sandbox key's secret, for `call(..., { key })`.
 */
export async function sandboxKey(db: Db, t: TenantFixture): Promise<string> {
  await setPreview(db, t.tenantId, "test-mode", true);
  const k = await issueKey(db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
  return k.key;
}
