import { and, desc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, channels, integrations, memberships, staffUsers } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import { notFound } from "@/server/errors";
import type { Scope } from "@/server/schemas/scopes";
import { effectiveScopes, explainScopes, type ScopeVerdict } from "../access/scopes";
import type { Actor } from "../actor";
import { keysOf } from "../keys/key-world";
import { integrationScopeVerdicts, scopeInputsOf } from "./integrations";

/** An integration as the console lists it, with its effective scopes and `api` channel. */
export interface IntegrationView {
  id: string;
  name: string;
  status: string;
  role: string;
  scopes: string[];
  effectiveScopes: string[];
  /** Each given scope, granted or not and why not (role, plan, owner's rights). */
  scopeVerdicts: ScopeVerdict[];
  piiCountry: string | null;
  legalBasis: string | null;
  ipAllowlist: string[] | null;
  dailySpendLimitMinor: string | null;
  channelId: string | null;
  createdAt: string;
}

/** Integrations of a tenant, newest first. */
export async function listIntegrations(db: Db, tenantId: string): Promise<IntegrationView[]> {
  const rows = await db
    .select({ i: integrations, channelId: channels.id })
    .from(integrations)
    .leftJoin(channels, and(eq(channels.integrationId, integrations.id), eq(channels.type, "api")))
    .where(eq(integrations.tenantId, tenantId))
    .orderBy(desc(integrations.createdAt), desc(integrations.id));
  return Promise.all(
    rows.map(async ({ i, channelId }) => {
      const verdicts = await integrationScopeVerdicts(db, i.id);
      return {
        id: i.id,
        name: i.name,
        status: i.status,
        role: i.role,
        scopes: i.scopes,
        // The same set as integrationEffectiveScopes (explainScopes agrees with effectiveScopes), one query.
        effectiveScopes: i.status === "active" ? verdicts.filter((v) => v.granted).map((v) => v.scope) : [],
        scopeVerdicts: verdicts,
        piiCountry: i.piiCountry,
        legalBasis: i.legalBasis,
        ipAllowlist: i.ipAllowlist,
        dailySpendLimitMinor: i.dailySpendLimitMinor?.toString() ?? null,
        channelId,
        createdAt: i.createdAt.toISOString(),
      };
    }),
  );
}

/** One integration of the tenant. @throws ApiError `not_found` (also for another tenant's). */
export async function getIntegration(db: Db, tenantId: string, integrationId: string): Promise<IntegrationView> {
  const all = await listIntegrations(db, tenantId);
  const found = all.find((i) => i.id === integrationId);
  if (!found) throw notFound("Integration");
  return found;
}

/** A key as listed: never its secret. `state` is active, expired or revoked. */
export interface KeyView {
  keyId: string;
  /** The tenant's name for the key; null = unnamed. */
  name: string | null;
  mode: string;
  createdAt: string;
  /** When the key last answered a request (stamped by the request log's writer, about a second late). */
  lastUsedAt: string | null;
  /** The caller's address of that request. */
  lastUsedAddress: string | null;
  expiresAt: string;
  ipAllowlist: string[] | null;
  state: "active" | "expired" | "revoked";
  /** `key_id` of the key this one was rolled to; it stops working at `expiresAt`. Null = never rolled. */
  replacedBy: string | null;
  /**
   * The staff member who issued or rolled the key in the console (email null when the account is gone);
   * `hasAccess` false once their membership of the tenant ended. Null = issued by platform operators.
   */
  issuedBy: { staffUserId: string; email: string | null; hasAccess: boolean } | null;
  /**
   * Scopes the integration grants that this key does not get, because of its issuer's current rights, and
   * why (issue 76 item 1: a key never carries more than its issuer may see); empty when none is cut.
   */
  cutByIssuer: { scope: Scope; reason: string }[];
}

/**
 * Keys of an integration of the actor's tenant that work in the actor's world (the console's Test mode:
 * test keys only in it, the keys of live data out of it; server/services/keys/key-world.ts), newest first,
 * with their issuer and what the issuer's rights cut.
 */
export async function listKeys(db: Db, actor: Actor, integrationId: string): Promise<KeyView[]> {
  const rows = await db
    .select({
      k: apiKeys,
      issuerEmail: staffUsers.email,
      issuerRights: memberships.rights,
      issuerActive: memberships.active,
    })
    .from(apiKeys)
    .leftJoin(staffUsers, eq(staffUsers.id, apiKeys.issuedByStaffUserId))
    .leftJoin(
      memberships,
      and(eq(memberships.tenantId, apiKeys.tenantId), eq(memberships.staffUserId, apiKeys.issuedByStaffUserId)),
    )
    .where(and(keysOf(actor), eq(apiKeys.integrationId, integrationId)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const now = nowMs();
  const scope = rows.some((r) => r.k.issuedByStaffUserId !== null) ? await scopeInputsOf(db, integrationId) : null;
  const granted = scope && !scope.ownerGone ? effectiveScopes(scope.inputs) : [];
  return rows.map(({ k, issuerEmail, issuerRights, issuerActive }) => ({
    keyId: k.keyId,
    name: k.name,
    mode: k.mode,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    lastUsedAddress: k.lastUsedAddress,
    expiresAt: k.expiresAt.toISOString(),
    ipAllowlist: k.ipAllowlist,
    state: k.revokedAt ? "revoked" : k.expiresAt.getTime() <= now ? "expired" : "active",
    replacedBy: k.replacedBy,
    issuedBy:
      k.issuedByStaffUserId === null
        ? null
        : { staffUserId: k.issuedByStaffUserId, email: issuerEmail, hasAccess: issuerActive === true },
    cutByIssuer:
      k.issuedByStaffUserId === null || !scope
        ? []
        : issuerActive !== true
          ? granted.map((s) => ({ scope: s, reason: "the key's issuer no longer has access to the tenant" }))
          : explainScopes({ ...scope.inputs, issuerRights: issuerRights ?? [] })
              .filter((v): v is ScopeVerdict & { granted: false } => !v.granted && granted.includes(v.scope))
              .map((v) => ({ scope: v.scope, reason: v.reason })),
  }));
}
