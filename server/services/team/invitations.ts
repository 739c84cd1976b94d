import { hashPassword } from "better-auth/crypto";
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { memberships, staffAccounts, staffInvitations, staffUsers, tenants } from "@/db/schema";
import { env } from "@/server/env";
import { ApiError, invalidField, notFound } from "@/server/errors";
import type { Right } from "@/server/schemas/scopes";
import type { StaffActor } from "../actor";
import { sendMail } from "../mail/mailer";
import { normalizeStaffEmail, STAFF_PASSWORD_MAX, STAFF_PASSWORD_MIN } from "../tenants/staff";
import { assertManagesTeam, assertMayGrant, parseRights } from "./rights";

/** How long an invitation can be accepted, seconds (7 days). */
export const INVITATION_TTL_S = 7 * 24 * 3600;

const EMAIL = z.email();

/** Where an invitation is accepted: `<this cell's origin>/console/invitations/<id>`. The id is its secret. */
export function invitationUrl(invitationId: string): string {
  const e = env();
  return `${e.cellOrigins[e.cell]}/console/invitations/${encodeURIComponent(invitationId)}`;
}

/** An invitation's state for people: `expired` is a pending one past its time. */
export type InvitationState = "pending" | "accepted" | "canceled" | "rejected" | "expired";

function stateOf(row: { status: string; expiresAt: Date }, now = new Date()): InvitationState {
  if (row.status === "pending" && row.expiresAt <= now) return "expired";
  return row.status as InvitationState;
}

/**
 * A right-checked invitation request: a valid email of someone not yet a member and rights the inviter holds.
 * @returns the normalized email and rights.
 * @throws ApiError 403 `scope_missing` (no `manage_team`, or a right the inviter lacks); `validation_failed`
 *   (bad email, unknown right); 409 `invalid_state` (already a member, or a pending invitation exists).
 */
export async function checkInvitation(
  db: Db,
  actor: StaffActor,
  input: { email: string; rights: readonly string[] },
): Promise<{ email: string; rights: Right[] }> {
  assertManagesTeam(actor);
  const rights = parseRights(input.rights);
  assertMayGrant(actor, rights);
  const email = normalizeStaffEmail(input.email);
  if (!EMAIL.safeParse(email).success)
    throw invalidField("/email", "invalid_format", "Enter an email address such as name@example.com.");
  await assertNotMemberOrInvited(db, actor.tenantId, email);
  return { email, rights };
}

async function assertNotMemberOrInvited(db: Db, tenantId: string, email: string): Promise<void> {
  const [member] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(staffUsers, eq(staffUsers.id, memberships.staffUserId))
    .where(and(eq(memberships.tenantId, tenantId), eq(staffUsers.email, email)));
  if (member) throw new ApiError("invalid_state", `${email} is already a member of this tenant.`);
  const pending = await db
    .select({ expiresAt: staffInvitations.expiresAt })
    .from(staffInvitations)
    .where(
      and(
        eq(staffInvitations.tenantId, tenantId),
        eq(staffInvitations.email, email),
        eq(staffInvitations.status, "pending"),
      ),
    );
  if (pending.some((p) => p.expiresAt > new Date()))
    throw new ApiError("invalid_state", `${email} already has a pending invitation; revoke it to invite again.`);
}

/**
 * Operator only (`npm run admin -- staff:invite`): invites `email` into a tenant with `rights`. The console
 * invites through the sign-in library's organization plugin (server/trpc/routers/team.ts), which needs the
 * inviting member's session; an operator has none, so this writes the same `staff_invitations` row the
 * plugin writes (status `pending`, the same lifetime) and the plugin accepts it like any other.
 * Mails the link when `SMTP_URL` is set.
 * @returns the invitation id, its link and whether it was mailed.
 * @throws ApiError `not_found` (tenant), `validation_failed` (email, rights), `invalid_state` (member or invited).
 */
export async function createOperatorInvitation(
  db: Db,
  input: { tenantId: string; email: string; rights: readonly string[] },
): Promise<{ id: string; url: string; mailed: boolean }> {
  const rights = parseRights(input.rights);
  const email = normalizeStaffEmail(input.email);
  if (!EMAIL.safeParse(email).success)
    throw invalidField("/email", "invalid_format", "Enter an email address such as name@example.com.");
  const tenantId = z.uuid().safeParse(input.tenantId);
  const [tenant] = tenantId.success
    ? await db.select({ id: tenants.id, name: tenants.name }).from(tenants).where(eq(tenants.id, tenantId.data))
    : [];
  if (!tenant) throw notFound("Tenant");
  await assertNotMemberOrInvited(db, tenant.id, email);
  const id = crypto.randomUUID();
  await db.insert(staffInvitations).values({
    id,
    tenantId: tenant.id,
    email,
    role: "member",
    rights,
    status: "pending",
    expiresAt: new Date(Date.now() + INVITATION_TTL_S * 1000),
    inviterId: null,
  });
  const mailed = await mailInvitation({ id, email, tenantName: tenant.name, rights, inviter: null });
  return { id, url: invitationUrl(id), mailed };
}

/**
 * Mails an invitation's link (when `SMTP_URL` is set).
 * @returns whether it was handed to the mail server.
 */
export function mailInvitation(input: {
  id: string;
  email: string;
  tenantName: string;
  rights: readonly string[];
  inviter: string | null;
}): Promise<boolean> {
  const url = invitationUrl(input.id);
  const who = input.inviter ? `${input.inviter} invites you` : "You are invited";
  return sendMail({
    to: input.email,
    subject: `Join ${input.tenantName} in the platform console`,
    text:
      `${who} to join the team of ${input.tenantName} in the platform console` +
      ` with the rights: ${input.rights.join(", ") || "none (read only)"}.\n\n` +
      `Accept within 7 days: ${url}\n\nIf you did not expect this, ignore this message.`,
  });
}

/** A pending or past invitation of a tenant, for the Team page (only for members with `manage_team`). */
export interface TeamInvitation {
  id: string;
  email: string;
  rights: Right[];
  state: InvitationState;
  expiresAt: string;
  createdAt: string;
  url: string;
}

/**
 * The tenant's open invitations (pending, and expired ones of the last 7 days), newest first. Their
 * links are secrets, so only members who may invite see them.
 * @throws ApiError 403 `scope_missing` without `manage_team`.
 */
export async function listTeamInvitations(db: Db, actor: StaffActor): Promise<TeamInvitation[]> {
  assertManagesTeam(actor);
  const rows = await db
    .select()
    .from(staffInvitations)
    .where(and(eq(staffInvitations.tenantId, actor.tenantId), eq(staffInvitations.status, "pending")))
    .orderBy(desc(staffInvitations.createdAt))
    .limit(200);
  const cutoff = Date.now() - INVITATION_TTL_S * 1000;
  return rows
    .filter((r) => r.expiresAt.getTime() > cutoff)
    .map((r) => ({
      id: r.id,
      email: r.email,
      rights: r.rights as Right[],
      state: stateOf(r),
      expiresAt: r.expiresAt.toISOString(),
      createdAt: r.createdAt.toISOString(),
      url: invitationUrl(r.id),
    }));
}

/**
 * An invitation of the actor's tenant that the actor may revoke.
 * @throws ApiError 403 `scope_missing` without `manage_team`; 404 `not_found` (another tenant's or none);
 *   409 `invalid_state` when it is no longer pending.
 */
export async function invitationToRevoke(db: Db, actor: StaffActor, invitationId: string): Promise<{ id: string }> {
  assertManagesTeam(actor);
  const [row] = await db
    .select({ id: staffInvitations.id, status: staffInvitations.status })
    .from(staffInvitations)
    .where(and(eq(staffInvitations.id, invitationId), eq(staffInvitations.tenantId, actor.tenantId)));
  if (!row) throw notFound("Invitation");
  if (row.status !== "pending") throw new ApiError("invalid_state", `The invitation is already ${row.status}.`);
  return row;
}

/** What the invitation link's page shows to whoever holds the link. */
export interface InvitationView {
  id: string;
  tenantId: string;
  tenantName: string;
  email: string;
  rights: Right[];
  state: InvitationState;
  expiresAt: string;
  /** Whether the invited email already has a console account (then it signs in, else it sets a password). */
  accountExists: boolean;
}

/**
 * The invitation behind a link, for its public page.
 * @throws ApiError 404 `not_found` for an unknown id.
 */
export async function viewInvitation(db: Db, invitationId: string): Promise<InvitationView> {
  const [row] = await db
    .select({ i: staffInvitations, tenantName: tenants.name })
    .from(staffInvitations)
    .innerJoin(tenants, eq(tenants.id, staffInvitations.tenantId))
    .where(eq(staffInvitations.id, invitationId));
  if (!row) throw notFound("Invitation");
  const [user] = await db.select({ id: staffUsers.id }).from(staffUsers).where(eq(staffUsers.email, row.i.email));
  return {
    id: row.i.id,
    tenantId: row.i.tenantId,
    tenantName: row.tenantName,
    email: row.i.email,
    rights: row.i.rights as Right[],
    state: stateOf(row.i),
    expiresAt: row.i.expiresAt.toISOString(),
    accountExists: Boolean(user),
  };
}

/**
 * Sign-up through an invitation, the only one there is (sign-up is closed otherwise): creates the console
 * account of the invited email with a password, while the invitation is pending and unexpired and the email
 * has no account yet. It makes no membership: the person then signs in and accepts the invitation through
 * the organization plugin, which checks the invitation again and that the signed-in email is the invited one.
 * The account's email counts as verified: the person holds the link sent for it.
 * @throws ApiError 404 `not_found` (unknown invitation); 409 `invalid_state` (not pending, expired, or the
 *   email already has an account: sign in instead); `validation_failed` (name, password length).
 */
export async function createInvitedAccount(
  db: Db,
  input: { invitationId: string; name: string; password: string },
): Promise<{ email: string }> {
  const view = await viewInvitation(db, input.invitationId);
  if (view.state !== "pending") throw new ApiError("invalid_state", `This invitation is ${view.state}.`);
  if (view.accountExists)
    throw new ApiError("invalid_state", "This email already has a console account: sign in to accept.");
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalidField("/name", "required", "Enter your name (up to 200 characters).");
  if (input.password.length < STAFF_PASSWORD_MIN || input.password.length > STAFF_PASSWORD_MAX)
    throw invalidField(
      "/password",
      "out_of_range",
      `The password must be ${STAFF_PASSWORD_MIN} to ${STAFF_PASSWORD_MAX} characters long.`,
    );
  const hash = await hashPassword(input.password);
  await db.transaction(async (tx) => {
    const id = crypto.randomUUID();
    const created = await tx
      .insert(staffUsers)
      .values({ id, email: view.email, name, emailVerified: true })
      .onConflictDoNothing({ target: staffUsers.email })
      .returning({ id: staffUsers.id });
    if (!created.length)
      throw new ApiError("invalid_state", "This email already has a console account: sign in to accept.");
    await tx
      .insert(staffAccounts)
      .values({ id: crypto.randomUUID(), accountId: id, providerId: "credential", userId: id, password: hash });
  });
  return { email: view.email };
}

/**
 * After the organization plugin accepted an invitation and made the membership: gives the membership the
 * invitation's rights (the plugin creates members with its own fields only) and makes sure it is active.
 */
export async function applyInvitedRights(
  db: Db,
  input: { invitationId: string; tenantId: string; staffUserId: string },
): Promise<void> {
  const [inv] = await db
    .select({ rights: staffInvitations.rights })
    .from(staffInvitations)
    .where(eq(staffInvitations.id, input.invitationId));
  await db
    .update(memberships)
    .set({ rights: inv?.rights ?? [], active: true })
    .where(and(eq(memberships.tenantId, input.tenantId), eq(memberships.staffUserId, input.staffUserId)));
}
