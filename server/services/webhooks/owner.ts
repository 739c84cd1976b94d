import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, tenants, webhookSubscriptions } from "@/db/schema";
import type { Cell } from "@/server/env";
import { notFound } from "@/server/errors";
import type { Scope } from "@/server/schemas/scopes";
import type { TransferFacts } from "../access/pii-transfer";
import type { Actor } from "../actor";
import { integrationEffectiveScopes } from "../integrations/integrations";

/**
 * The integration whose webhook subscriptions a call manages (a subscription belongs to one integration),
 * with what the `include_pii` rules need (spec "Events": the integration holds the matching read scopes;
 * "Authentication" 7: the RU transfer rule).
 * - Through the API it is the calling key's integration: its effective scopes and the key's allowlist.
 * - Through the console it is the integration the staff member picked ({@link resolveWebhookOwner}): the
 *   integration's effective scopes and its own allowlist, the one the console sets.
 */
export interface WebhookOwner {
  tenantId: string;
  integrationId: string;
  cell: Cell;
  scopes: readonly Scope[];
  transfer: TransferFacts;
}

/**
 * The owner for `integrationId` in the actor's tenant (console and operator use).
 * @throws ApiError 404 `not_found` when the integration is missing or of another tenant.
 */
export async function resolveWebhookOwner(db: Db, actor: Actor, integrationId: string): Promise<WebhookOwner> {
  const [row] = await db
    .select({
      id: integrations.id,
      status: integrations.status,
      country: integrations.piiCountry,
      legalBasis: integrations.legalBasis,
      ipAllowlist: integrations.ipAllowlist,
      cell: tenants.cell,
    })
    .from(integrations)
    .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
    .where(and(eq(integrations.tenantId, actor.tenantId), eq(integrations.id, integrationId)));
  if (!row) throw notFound("Integration");
  return {
    tenantId: actor.tenantId,
    integrationId: row.id,
    cell: row.cell as Cell,
    scopes: row.status === "active" ? await integrationEffectiveScopes(db, row.id) : [],
    transfer: { country: row.country, legalBasis: row.legalBasis, ipAllowlist: row.ipAllowlist },
  };
}

/**
 * The owner of the subscription `subscriptionId` in the actor's tenant.
 * @throws ApiError 404 `not_found` when the subscription is missing or of another tenant.
 */
export async function resolveSubscriptionOwner(db: Db, actor: Actor, subscriptionId: string): Promise<WebhookOwner> {
  const [sub] = await db
    .select({ integrationId: webhookSubscriptions.integrationId })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.tenantId, actor.tenantId), eq(webhookSubscriptions.id, subscriptionId)));
  if (!sub) throw notFound("Webhook subscription");
  return resolveWebhookOwner(db, actor, sub.integrationId);
}
