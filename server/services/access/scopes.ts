import { FEATURES, PII_SCOPES, ROLES, SCOPES, type Right, type Scope } from "@/server/schemas/scopes";

/**
 * How the effective scopes of a request are computed (spec "Authentication" 5-7):
 * integration scopes ∩ role ∩ owner's current rights ∩ license.
 */

/** The staff right a scope needs (an integration owner's for the scope to stay effective; a key issuer's to issue it) for an owner's integration to keep it; unlisted scopes need no right. */
export function rightFor(scope: Scope): Right | null {
  if (PII_SCOPES.has(scope)) return "view_personal_data";
  if (scope === "webhooks:manage") return "manage_webhooks";
  return null;
}

/** Inputs of the effective-scope computation; `ownerRights` null = integration has no staff owner. */
export interface ScopeInputs {
  integrationScopes: readonly string[];
  role: string;
  ownerRights: readonly string[] | null;
  licenseFeatures: readonly string[];
}

/**
 * Effective scopes, in the order of {@link SCOPES}. Unknown roles grant nothing; unknown scope strings are
 * dropped. The console, `/me` and the pipeline all call this one function.
 */
export function effectiveScopes(i: ScopeInputs): Scope[] {
  const role = (ROLES as Record<string, readonly Scope[]>)[i.role] ?? [];
  const licensed = new Set<string>(["webhooks:manage"]);
  for (const f of i.licenseFeatures)
    for (const s of (FEATURES as Record<string, readonly Scope[]>)[f] ?? []) licensed.add(s);
  const given = new Set(i.integrationScopes);
  return SCOPES.filter((s) => {
    if (!given.has(s) || !role.includes(s) || !licensed.has(s)) return false;
    const right = rightFor(s);
    return right === null || i.ownerRights === null || i.ownerRights.includes(right);
  });
}

/**
 * The rule for a staff member issuing a key (SECURITY.md "Rights"): a key never carries a scope its
 * issuer's rights do not cover, so issuing for an integration whose effective scopes include personal
 * data needs `view_personal_data`, and one holding `webhooks:manage` needs `manage_webhooks`.
 * @returns the rights the issuer lacks for these scopes, with the scopes that need each (empty = allowed).
 */
export function rightsMissingToIssue(
  scopes: readonly Scope[],
  issuerRights: readonly string[],
): { right: Right; scopes: Scope[] }[] {
  const missing = new Map<Right, Scope[]>();
  for (const s of scopes) {
    const right = rightFor(s);
    if (right && !issuerRights.includes(right)) missing.set(right, [...(missing.get(right) ?? []), s]);
  }
  return [...missing].map(([right, s]) => ({ right, scopes: s }));
}

/** Why a scope the integration was given is not effective; null when it is. */
export type ScopeVerdict =
  { scope: Scope; granted: true; reason: null } | { scope: Scope; granted: false; reason: string };

/**
 * For each scope the integration was given (known scopes, in the order of {@link SCOPES}): whether its keys
 * get it and, if not, the first cut that removes it, in the order {@link effectiveScopes} applies them:
 * role, license, owner's rights. Agrees with {@link effectiveScopes} by construction (same tests).
 */
export function explainScopes(i: ScopeInputs): ScopeVerdict[] {
  const granted = new Set(effectiveScopes(i));
  const role = (ROLES as Record<string, readonly Scope[]>)[i.role] ?? [];
  const given = new Set(i.integrationScopes);
  return SCOPES.filter((s) => given.has(s)).map((s): ScopeVerdict => {
    if (granted.has(s)) return { scope: s, granted: true, reason: null };
    if (!role.includes(s)) return { scope: s, granted: false, reason: `the role "${i.role}" does not allow it` };
    const feature = Object.entries(FEATURES).find(([, scopes]) => (scopes as readonly Scope[]).includes(s))?.[0];
    if (feature && !i.licenseFeatures.includes(feature))
      return { scope: s, granted: false, reason: `the plan does not include the "${feature}" feature` };
    const right = rightFor(s);
    return {
      scope: s,
      granted: false,
      reason: right ? `the integration's owner lacks the "${right}" right` : "not granted",
    };
  });
}
