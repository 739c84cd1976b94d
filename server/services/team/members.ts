import { and, asc, eq, ne } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships, staffSessions, staffUsers } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import type { Right } from "@/server/schemas/scopes";
import type { StaffActor } from "../actor";
import { assertManagesTeam, assertMayGrant, parseRights } from "./rights";

/** A member of a tenant's team as the console's Team page lists them. */
export interface TeamMember {
  /** Membership id (the organization plugin's member id). */
  id: string;
  staffUserId: string;
  email: string;
  name: string;
  /** `owner`, `admin` or `member`; an owner is never changed or removed by someone else. */
  role: string;
  rights: Right[];
  joinedAt: string;
  /** Whether this is the acting member. */
  you: boolean;
}

/** The tenant's active members, owners first, then by email. Any member may read the team. */
export async function listTeamMembers(db: Db, actor: StaffActor): Promise<TeamMember[]> {
  const rows = await db
    .select({
      id: memberships.id,
      staffUserId: memberships.staffUserId,
      email: staffUsers.email,
      name: staffUsers.name,
      role: memberships.role,
      rights: memberships.rights,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(staffUsers, eq(staffUsers.id, memberships.staffUserId))
    .where(and(eq(memberships.tenantId, actor.tenantId), eq(memberships.active, true)))
    .orderBy(asc(staffUsers.email));
  return rows
    .map((r) => ({
      id: r.id,
      staffUserId: r.staffUserId,
      email: r.email,
      name: r.name,
      role: r.role,
      rights: r.rights as Right[],
      joinedAt: r.createdAt.toISOString(),
      you: r.staffUserId === actor.staffUserId,
    }))
    .sort((a, b) => Number(b.role === "owner") - Number(a.role === "owner"));
}

/**
 * A member of the actor's tenant that the actor may change or remove: the actor has `manage_team`, the
 * member is not the actor (nobody edits or removes themselves here) and not an owner (owners are changed
 * by nobody else).
 * @throws ApiError 403 `scope_missing` without `manage_team`; 404 `not_found` for a member of another
 *   tenant or none; 409 `invalid_state` for oneself or an owner.
 */
export async function memberToManage(
  db: Db,
  actor: StaffActor,
  memberId: string,
): Promise<{ id: string; staffUserId: string; rights: Right[]; role: string }> {
  assertManagesTeam(actor);
  const [m] = await db
    .select({
      id: memberships.id,
      staffUserId: memberships.staffUserId,
      rights: memberships.rights,
      role: memberships.role,
    })
    .from(memberships)
    .where(and(eq(memberships.id, memberId), eq(memberships.tenantId, actor.tenantId)));
  if (!m) throw notFound("Member");
  if (m.staffUserId === actor.staffUserId)
    throw new ApiError("invalid_state", "You cannot change or remove your own membership; ask another team manager.");
  if (m.role === "owner") throw new ApiError("invalid_state", "The tenant's owner cannot be changed or removed.");
  return { ...m, rights: m.rights as Right[] };
}

/**
 * Replaces a member's rights. Every right added or taken away must be one the actor holds (nobody hands
 * on, or takes, a power they do not have). Takes effect on the member's next request.
 * The organization plugin has no API for a member's additional fields (its `updateMemberRole` changes the
 * role only), so the rights column is written here.
 * @returns the member's new rights.
 * @throws as {@link memberToManage}; ApiError `validation_failed` for an unknown right, 403 `scope_missing`
 *   for a right the actor lacks.
 */
export async function setMemberRights(
  db: Db,
  actor: StaffActor,
  input: { memberId: string; rights: readonly string[] },
): Promise<Right[]> {
  const rights = parseRights(input.rights);
  const m = await memberToManage(db, actor, input.memberId);
  const changed = [...rights.filter((r) => !m.rights.includes(r)), ...m.rights.filter((r) => !rights.includes(r))];
  assertMayGrant(actor, changed);
  await db
    .update(memberships)
    .set({ rights })
    .where(and(eq(memberships.id, m.id), eq(memberships.tenantId, actor.tenantId)));
  return rights;
}

/**
 * After a member was removed from `tenantId`: ends what that membership allowed, and no more (issue 76
 * item 5). Every console request and page checks the membership anew (server/trpc/init.ts
 * `tenantProcedure`, server/auth/console-session.ts), so the tenant is closed to the person at their next
 * request; here their sessions stop naming it as their active tenant, and, when they belong to no tenant
 * any more, their sessions end (a session then opens nothing). Someone who is still a member of other
 * tenants stays signed in there.
 * @returns how many of the person's sessions ended, and how many were cleared of the tenant.
 */
export async function endMembershipSessions(
  db: Db,
  input: { tenantId: string; staffUserId: string },
): Promise<{ ended: number; cleared: number }> {
  return db.transaction(async (tx) => {
    const [other] = await tx
      .select({ tenantId: memberships.tenantId })
      .from(memberships)
      .where(
        and(
          eq(memberships.staffUserId, input.staffUserId),
          ne(memberships.tenantId, input.tenantId),
          eq(memberships.active, true),
        ),
      )
      .limit(1);
    if (!other) {
      const ended = await tx
        .delete(staffSessions)
        .where(eq(staffSessions.userId, input.staffUserId))
        .returning({ id: staffSessions.id });
      return { ended: ended.length, cleared: 0 };
    }
    const cleared = await tx
      .update(staffSessions)
      .set({ activeOrganizationId: null })
      .where(and(eq(staffSessions.userId, input.staffUserId), eq(staffSessions.activeOrganizationId, input.tenantId)))
      .returning({ id: staffSessions.id });
    return { ended: 0, cleared: cleared.length };
  });
}
