import { and, eq, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, tenants, webhookSubscriptions } from "@/db/schema";
import type { Cell } from "@/server/env";
import { notFound } from "@/server/errors";
import type { Scope } from "@/server/schemas/scopes";
import type { TransferFacts } from "../access/pii-transfer";
import type { Actor } from "../actor";
import { integrationEffectiveScopes } from "../integrations/integrations";
import { livemodeOf, ownedBy, type OwnedTable } from "../tenant-scope";

/**
 * The integration whose webhook subscriptions a call manages (a subscription belongs to one integration),
 * with what the `include_pii` rules need (spec "Events": the integration holds the matching read scopes;
 * "Authentication" 7: the RU transfer rule).
 * - Through the API it is the calling key's integration: its effective scopes and the key's allowlist.
 * - Through the console it is the integration the staff member picked ({@link resolveWebhookOwner}): the
 *   integration's effective scopes and its own allowlist, the one the console sets.
 * The owner also carries the mode it acts in (issue 69): a subscription made in the sandbox (a test key of a
 * tenant with the preview `test-mode`, or the console in Test mode) is a test subscription, seen and
 * changed only in the sandbox, and the live world never sees it.
 */
export interface WebhookOwner {
  tenantId: string;
  /** The actor's mode (server/services/tenant-scope.ts): true = live, false = the tenant's sandbox. */
  livemode: boolean;
  integrationId: string;
  cell: Cell;
  scopes: readonly Scope[];
  transfer: TransferFacts;
}

/**
 * The owner for `integrationId` in the actor's tenant and mode (console and operator use). Integrations
 * belong to the tenant in both modes; the mode decides which of its subscriptions the owner sees.
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
    livemode: livemodeOf(actor),
    integrationId: row.id,
    cell: row.cell as Cell,
    scopes: row.status === "active" ? await integrationEffectiveScopes(db, row.id) : [],
    transfer: { country: row.country, legalBasis: row.legalBasis, ipAllowlist: row.ipAllowlist },
  };
}

/**
 * The owner of the subscription `subscriptionId` in the actor's tenant and mode.
 * @throws ApiError 404 `not_found` when the subscription is missing, of another tenant or of the other mode.
 */
export async function resolveSubscriptionOwner(db: Db, actor: Actor, subscriptionId: string): Promise<WebhookOwner> {
  const [sub] = await db
    .select({ integrationId: webhookSubscriptions.integrationId })
    .from(webhookSubscriptions)
    .where(and(ownedBy(webhookSubscriptions, actor), eq(webhookSubscriptions.id, subscriptionId)));
  if (!sub) throw notFound("Webhook subscription");
  return resolveWebhookOwner(db, actor, sub.integrationId);
}

/**
 * `tenant_id = owner.tenantId and livemode = owner.livemode` for `table`: {@link ownedBy} for code that holds
 * a {@link WebhookOwner} (or a row's `{tenantId, livemode}`, as background jobs do) instead of the actor.
 */
export function ownedByOwner(table: OwnedTable, owner: { tenantId: string; livemode: boolean }): SQL {
  return and(eq(table.tenantId, owner.tenantId), eq(table.livemode, owner.livemode)) as SQL;
}
