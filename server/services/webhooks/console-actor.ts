import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, tenants, webhookSubscriptions } from "@/db/schema";
import { env, type Cell } from "@/server/env";
import { notFound } from "@/server/errors";
import { assertPiiTransferAllowed } from "@/server/public-api/pipeline";
import type { Actor, ApiCaller } from "../actor";
import { integrationEffectiveScopes } from "../integrations/integrations";
import type { PiiTransferCheck } from "./subscriptions";

/**
 * The caller-like actor the webhook services (subscriptions.ts, journal.ts) need when a staff member acts
 * through the console on one integration of their tenant (DESIGN: the console calls the same services as
 * the API door). Those services read only these fields of an {@link ApiCaller}:
 * - `tenantId`, `integrationId`: every query's filter (a subscription belongs to one integration);
 * - `scopes`: the integration's effective scopes, for the `include_pii` scope rule;
 * - `integration.piiCountry` / `legalBasis` and `key.ipAllowlist`: the RU-cell transfer rule of personal
 *   data; without a key the integration's own allowlist stands in for it (it is the one the console sets);
 * - `key.keyId`: the log line when personal data is enabled, here `console:<staff user id>`;
 * - `keyMode`, `tenant`: as the API door fills them (the console acts for live data).
 * Rate limits, wallet and the rest of a key's context do not apply to the console and are left out.
 */
export type ConsoleWebhookActor = Pick<ApiCaller, "tenantId" | "integrationId" | "keyMode" | "tenant" | "integration" | "key" | "scopes"> & {
  staffUserId: string;
  via: "console";
};

/**
 * The actor for `integrationId` of the staff member's tenant, typed as the services' ApiCaller (they read
 * only the fields of {@link ConsoleWebhookActor}).
 * @throws ApiError 404 `not_found` when the integration is missing or of another tenant.
 */
export async function consoleWebhookActor(db: Db, actor: Actor, integrationId: string): Promise<ApiCaller> {
  const [row] = await db
    .select({ i: integrations, t: { id: tenants.id, name: tenants.name, cell: tenants.cell, crmMode: tenants.crmMode, mainDomain: tenants.mainDomain } })
    .from(integrations)
    .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
    .where(and(eq(integrations.tenantId, actor.tenantId), eq(integrations.id, integrationId)));
  if (!row) throw notFound("Integration");
  const a: ConsoleWebhookActor = {
    tenantId: actor.tenantId,
    integrationId: row.i.id,
    staffUserId: actor.staffUserId ?? "",
    via: "console",
    keyMode: "live",
    tenant: { ...row.t, cell: row.t.cell as Cell },
    integration: { id: row.i.id, name: row.i.name, piiCountry: row.i.piiCountry, legalBasis: row.i.legalBasis, dailySpendLimitMinor: row.i.dailySpendLimitMinor },
    key: { id: "", keyId: `console:${actor.staffUserId ?? "unknown"}`, mode: "live", expiresAt: new Date(8.64e15), ipAllowlist: row.i.ipAllowlist },
    scopes: row.i.status === "active" ? await integrationEffectiveScopes(db, row.i.id) : [],
  };
  // The services are typed for the API door; they read only the fields built above (see the type's doc).
  return a as unknown as ApiCaller;
}

/**
 * The actor for the integration owning `subscriptionId` in the staff member's tenant.
 * @throws ApiError 404 `not_found` when the subscription is missing or of another tenant.
 */
export async function consoleActorForSubscription(db: Db, actor: Actor, subscriptionId: string): Promise<ApiCaller> {
  const [sub] = await db
    .select({ integrationId: webhookSubscriptions.integrationId })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.tenantId, actor.tenantId), eq(webhookSubscriptions.id, subscriptionId)));
  if (!sub) throw notFound("Webhook subscription");
  return consoleWebhookActor(db, actor, sub.integrationId);
}

/** The RU-cell transfer rule of `include_pii`, the same check the API door injects (spec "Authentication" 7). */
export const consolePiiTransferCheck: PiiTransferCheck = (caller) => {
  if (env().cell === "ru") assertPiiTransferAllowed(caller);
};
