import { and, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, channels, integrations, memberships, tenants } from "@/db/schema";
import { ApiError, type FieldError, notFound } from "@/server/errors";
import type { Cell } from "@/server/env";
import { grantedScopes, ruPersonalDataRuleApplies, type TransferFacts } from "../access/pii-transfer";
import { allowlistInput, isNarrowAllowlist } from "../access/ip-allowlist";
import { isScope, PII_SCOPES, ROLE_NAMES, type Scope } from "@/server/schemas/scopes";
import {
  effectiveScopes,
  explainScopes,
  missingRightsText,
  rightsMissingToChange,
  type ScopeInputs,
  type ScopeVerdict,
} from "../access/scopes";
import type { StaffActor } from "../actor";

/** An integration row. */
export type Integration = typeof integrations.$inferSelect;

/** What creating an integration takes; scopes come from the spec's list plus `cards:read`/`cards:write`. */
export interface IntegrationCreate {
  name: string;
  scopes: string[];
  role?: string;
  /** Staff user who owns it; their rights also cut its scopes. Null for integrations made by operators. */
  ownerStaffUserId?: string | null;
  /** ISO 3166-1 alpha-2 country where the receiving system is hosted. */
  piiCountry?: string | null;
  legalBasis?: string | null;
  /** Addresses and CIDR networks; null or empty = any address. */
  ipAllowlist?: string[] | null;
  /** Daily spend limit, RUB minor units. */
  dailySpendLimitMinor?: bigint | null;
  /**
   * The console's stricter RU rule: personal-data scopes only when the transfer is allowed at once —
   * recipient country RU and a narrow allowlist on the integration (see isNarrowAllowlist).
   */
  requireTransferReady?: boolean;
}

/**
 * Checks an integration's settings. RU-cell rule (spec "Authentication" 7): personal-data scopes need the
 * recipient country and the legal basis at connection; the allowlist may be set here or on each key and
 * is enforced per request (403 `pii_transfer_not_allowed`).
 * @returns the normalized allowlist; @throws ApiError `validation_failed` listing every bad field.
 */
export function checkSettings(cell: string, input: IntegrationCreate): { allowlist: string[] | null; scopes: Scope[] } {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (!name || name.length > 100)
    errors.push({ field: "/name", code: "invalid_length", message: "name must be 1 to 100 characters." });
  const badScopes = input.scopes.filter((s) => !isScope(s));
  if (badScopes.length)
    errors.push({ field: "/scopes", code: "invalid_value", message: `Unknown scopes: ${badScopes.join(", ")}.` });
  if (input.scopes.length === 0)
    errors.push({ field: "/scopes", code: "required", message: "Give at least one scope." });
  const role = input.role ?? "full";
  if (!(ROLE_NAMES as string[]).includes(role))
    errors.push({ field: "/role", code: "invalid_value", message: `role must be one of ${ROLE_NAMES.join(", ")}.` });
  if (input.piiCountry != null && !/^[A-Z]{2}$/.test(input.piiCountry)) {
    errors.push({
      field: "/pii_country",
      code: "invalid_format",
      message: "pii_country must be an ISO 3166-1 alpha-2 code such as RU.",
    });
  }
  if (input.legalBasis != null && (input.legalBasis.trim() === "" || input.legalBasis.length > 500)) {
    errors.push({ field: "/legal_basis", code: "invalid_length", message: "legal_basis must be 1 to 500 characters." });
  }
  const { allowlist, errors: allowlistErrors } = allowlistInput(input.ipAllowlist);
  errors.push(...allowlistErrors);
  const scopes = [...new Set(input.scopes.filter(isScope))];
  if (ruPersonalDataRuleApplies({ cell }) && scopes.some((s) => PII_SCOPES.has(s))) {
    if (!input.piiCountry)
      errors.push({
        field: "/pii_country",
        code: "required",
        message: "On the RU cell personal-data scopes need the recipient country.",
      });
    if (!input.legalBasis)
      errors.push({
        field: "/legal_basis",
        code: "required",
        message: "On the RU cell personal-data scopes need the legal basis of transfer.",
      });
    if (input.requireTransferReady) {
      if (input.piiCountry && input.piiCountry !== "RU") {
        errors.push({
          field: "/pii_country",
          code: "not_allowed",
          message:
            "Personal data leaves the RU cell only for recipients hosted in Russia (RU); remove the personal-data scopes or host the receiver in Russia.",
        });
      }
      if (!allowlist || !isNarrowAllowlist(allowlist)) {
        errors.push({
          field: "/ip_allowlist",
          code: "not_narrow",
          message:
            "Personal-data scopes need an IP allowlist of single addresses or networks no wider than IPv4 /24 or IPv6 /56.",
        });
      }
    }
  }
  if (errors.length) throw new ApiError("validation_failed", "The integration settings are not valid.", { errors });
  return { allowlist, scopes };
}

/**
 * Creates an integration and its `api` channel (`ai_daily_limit` 200) in one transaction.
 * @throws ApiError `not_found` (tenant), `validation_failed`.
 */
export async function createIntegration(
  db: Db,
  tenantId: string,
  input: IntegrationCreate,
): Promise<Integration & { channelId: string }> {
  const [tenant] = await db.select({ cell: tenants.cell }).from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw notFound("Tenant");
  const { allowlist, scopes } = checkSettings(tenant.cell, input);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(integrations)
      .values({
        tenantId,
        name: input.name.trim(),
        role: input.role ?? "full",
        scopes,
        ownerStaffUserId: input.ownerStaffUserId ?? null,
        piiCountry: input.piiCountry ?? null,
        legalBasis: input.legalBasis ?? null,
        ipAllowlist: allowlist,
        dailySpendLimitMinor: input.dailySpendLimitMinor ?? null,
      })
      .returning();
    const [channel] = await tx
      .insert(channels)
      .values({ tenantId, type: "api", name: `API: ${row.name}`, integrationId: row.id })
      .returning({ id: channels.id });
    return { ...row, channelId: channel.id };
  });
}

/** Integration states an operator or staff can set; `revoked` is final. */
export const INTEGRATION_STATUSES = ["active", "suspended", "revoked"] as const;

/**
 * Suspends, reactivates or revokes an integration (its keys then answer 401 `integration_inactive`).
 * Revoking also revokes every key. Reactivating by a staff member (`editor`) follows the rule of
 * {@link assertChangeWithinRights}: the keys get their scopes back at once, so the member's rights must
 * cover every one of them (issue 76 item 1); suspending and revoking need no right beyond the door's.
 * @param editor the staff member changing it in the console; absent for operators.
 * @throws ApiError `not_found`, `validation_failed` (unknown status), `invalid_state` (leaving `revoked`),
 *   403 `scope_missing` naming the right the editor lacks.
 */
export async function setIntegrationStatus(
  db: Db,
  integrationId: string,
  status: string,
  tenantId?: string,
  editor?: StaffActor,
): Promise<Integration> {
  if (!(INTEGRATION_STATUSES as readonly string[]).includes(status)) {
    throw new ApiError("validation_failed", "Unknown status.", {
      errors: [{ field: "/status", code: "invalid_value", message: "status must be active, suspended or revoked." }],
    });
  }
  return db.transaction(async (tx) => {
    const where = tenantId
      ? and(eq(integrations.id, integrationId), eq(integrations.tenantId, tenantId))
      : eq(integrations.id, integrationId);
    const [cur] = await tx.select().from(integrations).where(where).for("update");
    if (!cur) throw notFound("Integration");
    if (cur.status === "revoked" && status !== "revoked")
      throw new ApiError("invalid_state", "A revoked integration cannot be reactivated; create a new one.");
    if (editor) await assertChangeWithinRights(tx, editor, cur.id, { status });
    const [row] = await tx
      .update(integrations)
      .set({ status, updatedAt: new Date() })
      .where(eq(integrations.id, cur.id))
      .returning();
    if (status === "revoked") {
      await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.integrationId, cur.id)));
    }
    return row;
  });
}

/**
 * What the effective-scope rule reads for one integration (its keys' issuers aside); `ownerGone` when its
 * owner lost access.
 * @throws ApiError `not_found`.
 */
export async function scopeInputsOf(
  db: Db,
  integrationId: string,
): Promise<{ inputs: ScopeInputs; ownerGone: boolean; status: string; cell: Cell; transfer: TransferFacts }> {
  const [r] = await db
    .select({
      status: integrations.status,
      scopes: integrations.scopes,
      role: integrations.role,
      owner: integrations.ownerStaffUserId,
      features: tenants.features,
      cell: tenants.cell,
      country: integrations.piiCountry,
      legalBasis: integrations.legalBasis,
      ipAllowlist: integrations.ipAllowlist,
      rights: memberships.rights,
      active: memberships.active,
    })
    .from(integrations)
    .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
    .leftJoin(
      memberships,
      and(eq(memberships.tenantId, integrations.tenantId), eq(memberships.staffUserId, integrations.ownerStaffUserId)),
    )
    .where(eq(integrations.id, integrationId));
  if (!r) throw notFound("Integration");
  return {
    inputs: {
      integrationScopes: r.scopes,
      role: r.role,
      ownerRights: r.owner === null ? null : (r.rights ?? []),
      licenseFeatures: r.features,
    },
    ownerGone: r.owner !== null && r.active !== true,
    status: r.status,
    cell: r.cell as Cell,
    transfer: { country: r.country, legalBasis: r.legalBasis, ipAllowlist: r.ipAllowlist },
  };
}

/**
 * What a staff member's change sets of what decides what an integration's keys read; absent = unchanged.
 * The last three are the RU-cell transfer facts (spec "Authentication" 7); null = cleared.
 */
export interface ScopeChange {
  scopes?: readonly string[];
  role?: string;
  status?: string;
  piiCountry?: string | null;
  legalBasis?: string | null;
  /** The integration's allowlist, which keys without their own are held to. */
  ipAllowlist?: string[] | null;
}

/**
 * The rule of issue 76 item 1, where every console change of an integration goes through: a member may not
 * make a change after which the integration's keys read a scope they did not read before, unless the
 * member's rights cover every scope they read after it ({@link rightsMissingToChange}). What keys read is
 * the effective scopes (scopes ∩ role ∩ owner's rights ∩ license, nothing while the integration is not
 * active or its owner lost access) less what the RU-cell personal-data rule refuses them, by the same
 * {@link grantedScopes} that `GET /me` shows and the same transfer test the pipeline enforces, for each
 * allowlist a key is held to: the integration's (keys without their own, keys to come) and each live key's
 * own. So a role set to `content` and back to `full`, a suspension and reactivation, or a recipient
 * country set to RU (a legal basis given, an allowlist narrowed) that lets an operator's key read personal
 * data, cannot give keys what the member may not see; a change that widens nothing (a rename, suspend,
 * revoke) is always allowed. Call inside the changing transaction, after locking the integration row.
 * @throws ApiError `not_found`; 403 `scope_missing` naming each right the member lacks and the scopes needing it.
 */
export async function assertChangeWithinRights(
  db: Db,
  actor: StaffActor,
  integrationId: string,
  change: ScopeChange,
): Promise<void> {
  const { inputs, ownerGone, status, cell, transfer } = await scopeInputsOf(db, integrationId);
  // The allowlists the integration's live keys hold of their own; the others follow the integration's.
  const own = await db
    .selectDistinct({ ipAllowlist: apiKeys.ipAllowlist })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.integrationId, integrationId),
        isNotNull(apiKeys.ipAllowlist),
        or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, sql`now()`)),
      ),
    );
  const reach = (i: ScopeInputs, st: string, facts: TransferFacts): Scope[] => {
    if (ownerGone || st !== "active") return [];
    const scopes = effectiveScopes(i);
    const lists = [facts.ipAllowlist, ...own.map((k) => k.ipAllowlist)];
    return [...new Set(lists.flatMap((ipAllowlist) => grantedScopes(scopes, cell, { ...facts, ipAllowlist })))];
  };
  const before = reach(inputs, status, transfer);
  const after = reach(
    { ...inputs, integrationScopes: change.scopes ?? inputs.integrationScopes, role: change.role ?? inputs.role },
    change.status ?? status,
    {
      country: change.piiCountry !== undefined ? change.piiCountry : transfer.country,
      legalBasis: change.legalBasis !== undefined ? change.legalBasis : transfer.legalBasis,
      ipAllowlist: change.ipAllowlist !== undefined ? change.ipAllowlist : transfer.ipAllowlist,
    },
  );
  const missing = rightsMissingToChange(before, after, actor.rights);
  if (missing.length) {
    throw new ApiError(
      "scope_missing",
      `This change would give the integration's keys scopes your rights do not cover; it needs the ${missingRightsText(missing)} right.`,
    );
  }
}

/** The scopes an integration's keys currently get, exactly as the pipeline computes them. */
export async function integrationEffectiveScopes(db: Db, integrationId: string): Promise<Scope[]> {
  const { inputs, ownerGone } = await scopeInputsOf(db, integrationId);
  return ownerGone ? [] : effectiveScopes(inputs);
}

/**
 * Each scope the integration was given, with whether its keys get it and why not (role, plan, owner's
 * rights, or the owner's lost access), for the console (issue 19 item 3).
 */
export async function integrationScopeVerdicts(db: Db, integrationId: string): Promise<ScopeVerdict[]> {
  const { inputs, ownerGone } = await scopeInputsOf(db, integrationId);
  const verdicts = explainScopes(inputs);
  return ownerGone
    ? verdicts.map((v) => ({ scope: v.scope, granted: false, reason: "the integration's owner no longer has access" }))
    : verdicts;
}
