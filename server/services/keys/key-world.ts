import { and, eq, not, or, sql, type SQL } from "drizzle-orm";
import { apiKeys, tenants } from "@/db/schema";
import { invalidField } from "@/server/errors";
import type { Actor } from "../actor";
import { livemodeOf } from "../tenant-scope";
import { TEST_MODE_PREVIEW } from "../tenants/memberships";

/**
 * Which world an API key works in (issue 69): the sandbox (`livemode` false) for a `test` key of a tenant
 * with the preview `test-mode`, live data for every other key; the rule authentication applies
 * (server/services/access/authenticate.ts). Keys carry a mode, not a `livemode` column, so the console
 * scopes them by this rule: in Test mode it lists and changes the tenant's test keys only, out of it the
 * keys that work in live data (all of them for a tenant without the preview, as before test mode).
 */

/** True when a key of `mode` works in live data for a tenant whose previews are `previews`. */
export function keyLivemode(mode: string, previews: readonly string[]): boolean {
  return mode === "live" || !previews.includes(TEST_MODE_PREVIEW);
}

/**
 * `api_keys` rows of the actor's tenant that work in the actor's world: the filter of every read and
 * change of a key by the console. A key of another tenant or of the other world then reads as missing.
 * The tenant's previews are read in a subquery, so the filter fits a plain select, update or delete.
 */
export function keysOf(actor: Actor): SQL {
  const sandboxOn = sql`exists (select 1 from ${tenants} where ${tenants.id} = ${apiKeys.tenantId} and ${TEST_MODE_PREVIEW}::text = any(${tenants.previews}))`;
  const world = livemodeOf(actor)
    ? or(eq(apiKeys.mode, "live"), not(sandboxOn))
    : and(eq(apiKeys.mode, "test"), sandboxOn);
  return and(eq(apiKeys.tenantId, actor.tenantId), world) as SQL;
}

/**
 * Refuses to issue a key that would work in another world than the issuing actor's (a key issued in the
 * console lands where the console is, as every write does): in Test mode only `test` keys; out of it,
 * for a tenant with the preview `test-mode`, no `test` key (it would live in the sandbox, out of sight).
 * @throws ApiError `validation_failed` on `/mode` naming the switch to use.
 */
export function checkIssuedKeyWorld(actor: Actor, mode: string, previews: readonly string[]): void {
  if (keyLivemode(mode, previews) === livemodeOf(actor)) return;
  throw livemodeOf(actor)
    ? invalidField("/mode", "invalid_value", "A test key works in the sandbox: switch on Test mode to create one.")
    : invalidField(
        "/mode",
        "invalid_value",
        "Test mode issues test keys only: switch Test mode off to issue a live key.",
      );
}
