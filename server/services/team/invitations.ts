import { hashPassword } from "better-auth/crypto";
import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { memberships, staffAccounts, staffInvitations, staffUsers, tenants } from "@/db/schema";
import { env } from "@/server/env";
import { ApiError, invalidField, notFound } from "@/server/errors";
import type { Right } from "@/server/schemas/scopes";
import type { StaffActor } from "../actor";
import { mailer, sendMail } from "../mail/mailer";
import { normalizeStaffEmail, STAFF_PASSWORD_MAX, STAFF_PASSWORD_MIN } from "../tenants/staff";
import { assertManagesTeam, assertMayGrant, parseRights } from "./rights";

/** How long an invitation can be accepted, seconds (7 days). */
export const INVITATION_TTL_S = 7 * 24 * 3600;

const EMAIL = z.email();

/**
 * Where an invitation is accepted: `<this cell's origin>/console/invitations/<token>`. The token is the
 * invitation's secret (see {@link newInvitationSecret}); the invitation's id is not.
 */
export function invitationUrl(token: string): string {
  const e = env();
  return `${e.cellOrigins[e.cell]}/console/invitations/${encodeURIComponent(token)}`;
}

/** An invitation link's secret: 32 random bytes, base64url (43 characters). */
export const INVITATION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new secret for an invitation link and the SHA-256 (hex) kept in `staff_invitations.secret_hash`; the
 * token itself is stored nowhere and reaches only the invited address (issue 76 item 2).
 */
export function newInvitationSecret(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: invitationSecretHash(token) };
}

/** The stored form of an invitation token: SHA-256, hex. */
export function invitationSecretHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * How a new invitation's link reaches the invited person (issue 76 item 2):
 * - `mail`: mail is configured (`SMTP_URL`, or a test's mailer): the link is mailed to the invited address
 *   only, and the inviter never sees it;
 * - `shown`: outside production (development, the demo, tests) without mail, the link is shown once to
 *   the inviter, under a warning that whoever holds it can take the invited account.
 * @throws ApiError 503 `service_unavailable` in production (`NODE_ENV=production`) without `SMTP_URL`:
 *   nothing is written; invitations need mail there.
 */
export function invitationDelivery(): "mail" | "shown" {
  if (mailer()) return "mail";
  if (env().nodeEnv !== "production") return "shown";
  throw new ApiError(
    "service_unavailable",
    "Invitations are mailed to the invited address, and this server has no mail configured: an operator sets SMTP_URL (or invites with `npm run admin -- staff:invite`).",
  );
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
 * plugin writes (status `pending`, the same lifetime, a secret's hash) and the plugin accepts it like any
 * other. The operator is platform staff and gets the link to hand over; it is mailed too when
 * `SMTP_URL` is set.
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
  const secret = newInvitationSecret();
  await db.insert(staffInvitations).values({
    id,
    tenantId: tenant.id,
    email,
    role: "member",
    rights,
    status: "pending",
    expiresAt: new Date(Date.now() + INVITATION_TTL_S * 1000),
    inviterId: null,
    secretHash: secret.hash,
  });
  const mailed = await mailInvitation({ token: secret.token, email, tenantName: tenant.name, rights, inviter: null });
  return { id, url: invitationUrl(secret.token), mailed };
}

/**
 * Delivers a console invitation just made with `secret` ({@link invitationDelivery} decided how): mails
 * its link to the invited address, or returns the link to show when delivery is `shown`. A link the mail
 * server did not take reaches nobody, so that invitation is withdrawn (canceled) and the inviter told to
 * try again: an invitation exists only once its link is on its way.
 * @returns the link to show (delivery `shown`), else null.
 * @throws ApiError 503 `upstream_unavailable` when the mail server refused or could not be reached.
 */
export async function deliverInvitation(
  db: Db,
  input: { invitationId: string; token: string; delivery: "mail" | "shown"; inviter: string },
): Promise<{ url: string | null }> {
  if (input.delivery === "shown") return { url: invitationUrl(input.token) };
  const [row] = await db
    .select({ email: staffInvitations.email, rights: staffInvitations.rights, tenantName: tenants.name })
    .from(staffInvitations)
    .innerJoin(tenants, eq(tenants.id, staffInvitations.tenantId))
    .where(eq(staffInvitations.id, input.invitationId));
  if (!row) throw notFound("Invitation");
  const mailed = await mailInvitation({
    token: input.token,
    email: row.email,
    tenantName: row.tenantName,
    rights: row.rights,
    inviter: input.inviter,
  });
  if (!mailed) {
    await db
      .update(staffInvitations)
      .set({ status: "canceled" })
      .where(and(eq(staffInvitations.id, input.invitationId), eq(staffInvitations.status, "pending")));
    throw new ApiError(
      "upstream_unavailable",
      `The mail server did not take the invitation of ${row.email}, so it was withdrawn; invite again in a moment.`,
    );
  }
  return { url: null };
}

/**
 * Mails an invitation's link (when `SMTP_URL` is set).
 * @returns whether it was handed to the mail server.
 */
export function mailInvitation(input: {
  token: string;
  email: string;
  tenantName: string;
  rights: readonly string[];
  inviter: string | null;
}): Promise<boolean> {
  const url = invitationUrl(input.token);
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

/**
 * A pending or past invitation of a tenant, for the Team page (only for members with `manage_team`). It
 * carries no link: the link's secret reaches only the invited address (issue 76 item 2).
 */
export interface TeamInvitation {
  id: string;
  email: string;
  rights: Right[];
  state: InvitationState;
  expiresAt: string;
  createdAt: string;
}

/**
 * The tenant's open invitations (pending, and expired ones of the last 7 days), newest first, without
 * their links.
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

/**
 * What the invitation link's page shows to whoever holds the link. It does not say whether the invited
 * email already has a console account (issue 76 item 2): the page offers both signing in and a new
 * account, and only the invited person, who holds the link, learns which applies.
 */
export interface InvitationView {
  tenantName: string;
  email: string;
  rights: Right[];
  state: InvitationState;
  expiresAt: string;
}

/** The invitation whose link carries `token`, or undefined (an unknown or malformed token). */
async function invitationByToken(db: Db, token: string) {
  if (!INVITATION_TOKEN.test(token)) return undefined;
  const [row] = await db
    .select({ i: staffInvitations, tenantName: tenants.name })
    .from(staffInvitations)
    .innerJoin(tenants, eq(tenants.id, staffInvitations.tenantId))
    .where(eq(staffInvitations.secretHash, invitationSecretHash(token)));
  return row;
}

/**
 * The invitation behind a link, for its public page.
 * @throws ApiError 404 `not_found` for an unknown token.
 */
export async function viewInvitation(db: Db, token: string): Promise<InvitationView> {
  const row = await invitationByToken(db, token);
  if (!row) throw notFound("Invitation");
  return {
    tenantName: row.tenantName,
    email: row.i.email,
    rights: row.i.rights as Right[],
    state: stateOf(row.i),
    expiresAt: row.i.expiresAt.toISOString(),
  };
}

/**
 * The id of the invitation behind a link, for accepting it through the organization plugin (which then
 * checks that it is pending, unexpired and addressed to the signed-in email).
 * @throws ApiError 404 `not_found` for an unknown token.
 */
export async function invitationIdOfToken(db: Db, token: string): Promise<string> {
  const row = await invitationByToken(db, token);
  if (!row) throw notFound("Invitation");
  return row.i.id;
}

/**
 * Joining through an invitation with a new console account, the only sign-up there is (sign-up is
 * closed otherwise). In one transaction, with the invitation row locked: the invitation must be pending
 * and unexpired and its email without an account; then the account (its password hashed by the
 * sign-in library's scrypt, its email counted as verified: the person holds the link sent to it), its
 * membership with the invited role and rights, and the invitation marked accepted. So an account made
 * from an invitation exists only together with its accepted membership, and a revoked, expired or used
 * invitation makes none (issue 76 item 2). The person then signs in with the password.
 * @returns the email to sign in with and the tenant joined.
 * @throws ApiError 404 `not_found` (unknown link); 409 `invalid_state` (not pending, expired, or the email
 *   already has an account: sign in and accept instead); `validation_failed` (name, password length).
 */
export async function createInvitedAccount(
  db: Db,
  input: { token: string; name: string; password: string },
): Promise<{ email: string; tenantId: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalidField("/name", "required", "Enter your name (up to 200 characters).");
  if (input.password.length < STAFF_PASSWORD_MIN || input.password.length > STAFF_PASSWORD_MAX)
    throw invalidField(
      "/password",
      "out_of_range",
      `The password must be ${STAFF_PASSWORD_MIN} to ${STAFF_PASSWORD_MAX} characters long.`,
    );
  // Checked before the (deliberately slow) password hash, so an unknown link costs no scrypt; checked
  // again under the row lock below, which is what decides.
  const seen = await invitationByToken(db, input.token);
  if (!seen) throw notFound("Invitation");
  if (stateOf(seen.i) !== "pending") throw new ApiError("invalid_state", `This invitation is ${stateOf(seen.i)}.`);
  const hash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [inv] = await tx.select().from(staffInvitations).where(eq(staffInvitations.id, seen.i.id)).for("update");
    if (!inv) throw notFound("Invitation");
    const state = stateOf(inv);
    if (state !== "pending") throw new ApiError("invalid_state", `This invitation is ${state}.`);
    const id = crypto.randomUUID();
    const created = await tx
      .insert(staffUsers)
      .values({ id, email: inv.email, name, emailVerified: true })
      .onConflictDoNothing({ target: staffUsers.email })
      .returning({ id: staffUsers.id });
    if (!created.length)
      throw new ApiError("invalid_state", "This email already has a console account: sign in to accept.");
    // The shape better-auth's email-and-password sign-in reads: provider "credential", account id = user id.
    await tx
      .insert(staffAccounts)
      .values({ id: crypto.randomUUID(), accountId: id, providerId: "credential", userId: id, password: hash });
    await tx.insert(memberships).values({
      tenantId: inv.tenantId,
      staffUserId: id,
      role: inv.role ?? "member",
      rights: inv.rights,
      active: true,
    });
    await tx.update(staffInvitations).set({ status: "accepted" }).where(eq(staffInvitations.id, inv.id));
    return { email: inv.email, tenantId: inv.tenantId };
  });
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
