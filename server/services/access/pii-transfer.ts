import type { Cell } from "@/server/env";
import { PII_SCOPES } from "@/server/schemas/scopes";
import { ApiError } from "@/server/errors";
import { isNarrowAllowlist } from "./ip-allowlist";

/**
 * What the RU-cell personal-data rule looks at (spec "Authentication" 7): where the receiving system is
 * hosted (ISO 3166 alpha-2), the legal basis of the transfer, and the IP allowlist that limits who
 * receives (the calling key's for API answers; the integration's for webhook deliveries set up in the
 * console). Null = not given.
 */
export interface TransferFacts {
  country: string | null;
  legalBasis: string | null;
  ipAllowlist: readonly string[] | null;
}

/** True when personal data may leave under the RU rule: recipient RU, a legal basis and a narrow allowlist. */
export function piiTransferAllowed(facts: TransferFacts): boolean {
  return facts.country === "RU" && !!facts.legalBasis && isNarrowAllowlist(facts.ipAllowlist as string[] | null);
}

/**
 * The RU-cell personal-data rule (spec "Authentication" 7), for personal-data routes and `include_pii`.
 * Applies only to tenants of the `ru` cell; elsewhere it always passes.
 * @param cell the tenant's cell
 * @throws ApiError 403 `pii_transfer_not_allowed`
 */
export function assertPiiTransferAllowed(cell: Cell, facts: TransferFacts): void {
  if (cell !== "ru" || piiTransferAllowed(facts)) return;
  throw new ApiError(
    "pii_transfer_not_allowed",
    "Personal data leaves the RU cell only for recipients in the Russian Federation with a legal basis and a narrow IP allowlist (single addresses, IPv4 /24 or IPv6 /56 at most).",
  );
}

/**
 * Whether the RU personal-data rule is in force for a tenant: exactly when the tenant belongs to the RU
 * cell. The one notion of "the tenant's cell" for personal data (API reads, `include_pii`, integration
 * settings, deliveries), whichever process (API, worker, CLI) touches the data.
 */
export function ruPersonalDataRuleApplies(tenant: { cell: string }): boolean {
  return tenant.cell === "ru";
}

/**
 * The scopes a caller is granted once the RU personal-data rule is applied (spec "Authentication" 7: where
 * transfer is not allowed "the scope is not granted"): personal-data scopes are left out for a tenant of the
 * RU cell whose transfer facts fail the rule; everything else passes unchanged. `GET /me` shows these in
 * `key.scopes`; calls to personal-data routes still answer 403 `pii_transfer_not_allowed` (the spec's code
 * for them), not `scope_missing`.
 * @param cell the tenant's cell
 */
export function grantedScopes<S extends string>(scopes: readonly S[], cell: Cell, facts: TransferFacts): S[] {
  if (cell !== "ru" || piiTransferAllowed(facts)) return [...scopes];
  return scopes.filter((s) => !PII_SCOPES.has(s as never));
}
