import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, integrations } from "@/db/schema";
import type { StaffActor } from "../actor";
import { memberToManage } from "./members";

/** A key that removing its issuer from the team revokes, as the Team page's removal dialog lists it. */
export interface KeyOfMember {
  keyId: string;
  /** The tenant's name for the key; null = unnamed. */
  name: string | null;
  mode: string;
  integrationId: string;
  integrationName: string;
}

/**
 * The working keys (not revoked, not expired) a member issued or rolled in this tenant: the keys that
 * removing them revokes, in the same transaction as the removal (issue 76 item 1; the trigger
 * `revoke_keys_of_removed_issuer`, db/migrations/0018_key_issuer.sql), listed before the removal is
 * confirmed. By integration name, then key id. The same checks as removing the member.
 * @throws as {@link memberToManage}: 403 `scope_missing` without `manage_team`, 404 `not_found`, 409
 *   `invalid_state` for oneself or an owner.
 */
export async function keysRevokedWithMember(db: Db, actor: StaffActor, memberId: string): Promise<KeyOfMember[]> {
  const m = await memberToManage(db, actor, memberId);
  return db
    .select({
      keyId: apiKeys.keyId,
      name: apiKeys.name,
      mode: apiKeys.mode,
      integrationId: integrations.id,
      integrationName: integrations.name,
    })
    .from(apiKeys)
    .innerJoin(integrations, eq(integrations.id, apiKeys.integrationId))
    .where(
      and(
        eq(apiKeys.tenantId, actor.tenantId),
        eq(apiKeys.issuedByStaffUserId, m.staffUserId),
        isNull(apiKeys.revokedAt),
        gt(apiKeys.expiresAt, new Date()),
      ),
    )
    .orderBy(asc(integrations.name), asc(apiKeys.keyId));
}
