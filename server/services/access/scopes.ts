import { FEATURES, PII_SCOPES, ROLES, SCOPES, type Right, type Scope } from "@/server/schemas/scopes";

/**
 * How the effective scopes of a request are computed (spec "Authentication" 5-7):
 * integration scopes ∩ role ∩ owner's current rights ∩ license, and for a key issued in the console also
 * ∩ its issuer's current rights (issue 76 item 1: a key never carries more than its issuer may see).
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
  /**
   * Current rights in the tenant of the staff member who issued the key (`api_keys.issued_by_staff_user_id`);
   * null or absent = no issuer cut (a key issued by operators, or the integration as a whole).
   */
  issuerRights?: readonly string[] | null;
}

/** Whether `rights` (null = not cut) cover the right `scope` needs. */
function covers(rights: readonly string[] | null | undefined, scope: Scope): boolean {
  const right = rightFor(scope);
  return right === null || rights == null || rights.includes(right);
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
  return SCOPES.filter(
    (s) => given.has(s) && role.includes(s) && licensed.has(s) && covers(i.ownerRights, s) && covers(i.issuerRights, s),
  );
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

/**
 * The rule for a staff member changing what an integration's keys get (issue 76 item 1): a change after
 * which the effective scopes (`after`) hold anything they did not hold before (`before`) needs the member's
 * rights to cover every scope of `after`, not only the added ones, since the change is what makes them
 * effective again (a role set back to `full`, an integration reactivated). A change that widens nothing
 * (rename, narrowing, suspend, revoke) needs no right here.
 * @returns as {@link rightsMissingToIssue}: the rights the member lacks (empty = allowed).
 */
export function rightsMissingToChange(
  before: readonly Scope[],
  after: readonly Scope[],
  memberRights: readonly string[],
): { right: Right; scopes: Scope[] }[] {
  return after.every((s) => before.includes(s)) ? [] : rightsMissingToIssue(after, memberRights);
}

/** "\"view_personal_data\" (for leads:read) and ..." for a `scope_missing` detail. */
export function missingRightsText(missing: readonly { right: Right; scopes: readonly Scope[] }[]): string {
  return missing.map((m) => `"${m.right}" (for ${m.scopes.join(", ")})`).join(" and ");
}

/** Why a scope the integration was given is not effective; null when it is. */
export type ScopeVerdict =
  { scope: Scope; granted: true; reason: null } | { scope: Scope; granted: false; reason: string };

/**
 * For each scope the integration was given (known scopes, in the order of {@link SCOPES}): whether its keys
 * get it and, if not, the first cut that removes it, in the order {@link effectiveScopes} applies them:
 * role, license, owner's rights, issuer's rights. Agrees with {@link effectiveScopes} by construction (same
 * tests).
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
    if (right && !covers(i.ownerRights, s))
      return { scope: s, granted: false, reason: `the integration's owner lacks the "${right}" right` };
    return {
      scope: s,
      granted: false,
      reason: right ? `the key's issuer lacks the "${right}" right` : "not granted",
    };
  });
}
