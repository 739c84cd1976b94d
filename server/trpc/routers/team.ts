import { TRPCError } from "@trpc/server";
import { APIError } from "better-auth";
import { z } from "zod";
import { auth } from "@/server/auth/auth";
import { ApiError } from "@/server/errors";
import {
  checkInvitation,
  createInvitedAccount,
  deliverInvitation,
  INVITATION_TOKEN,
  invitationDelivery,
  invitationIdOfToken,
  invitationToRevoke,
  listTeamInvitations,
  newInvitationSecret,
  viewInvitation,
} from "@/server/services/team/invitations";
import {
  endMembershipSessions,
  listTeamMembers,
  memberToManage,
  setMemberRights,
} from "@/server/services/team/members";
import { keysRevokedWithMember } from "@/server/services/team/member-keys";
import { RIGHTS } from "@/server/schemas/scopes";
import { publicProcedure, router, staffProcedure, tenantProcedure, withRight } from "../init";

const rights = z.array(z.enum(RIGHTS)).max(RIGHTS.length);
const invitationId = z.string().min(1).max(100);
/** The secret of an invitation link (`/console/invitations/<token>`). */
const token = z.string().regex(INVITATION_TOKEN, "is not an invitation link's token");

/** The request's headers, which carry the session the organization plugin acts with. */
function sessionHeaders(headers: Headers | undefined): Headers {
  if (!headers) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return headers;
}

/**
 * Runs a call of the sign-in library's organization plugin; its refusals become catalog errors (a
 * service's ApiError thrown by one of our hooks passes through unchanged).
 */
async function plugin<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError || !(err instanceof APIError)) throw err;
    const message = err.body?.message ?? err.message;
    const status = err.statusCode;
    throw new ApiError(
      status === 401 || status === 403 ? "scope_missing" : status === 404 ? "not_found" : "invalid_state",
      message,
    );
  }
}

/**
 * The team of a tenant (issue 19 item 2), on better-auth's organization plugin: members and their
 * rights, invitations by email with rights, accepting one (the only sign-up there is), changing rights
 * and removing a member, whose access to the tenant ends at once. Every change needs `manage_team`, and
 * nobody hands on a right they do not hold; the checks run here on the server whatever the page shows.
 * An invitation link's secret reaches only the invited address (issue 76 item 2).
 */
export const teamRouter = router({
  /** Members of the tenant with their rights; any member may read it. */
  members: tenantProcedure.query(({ ctx }) => listTeamMembers(ctx.db, ctx.actor)),

  /** Pending (and recently expired) invitations, without their links; `manage_team` only. */
  invitations: withRight("manage_team").query(({ ctx }) => listTeamInvitations(ctx.db, ctx.actor)),

  /**
   * Invites an email with rights. The link is mailed to that address only (`SMTP_URL`); `url` is null
   * then. Outside production without mail, `url` is the link, shown once to pass on; in production
   * without mail nothing is written (503 `service_unavailable`), and a link the mail server refused
   * withdraws the invitation (503 `upstream_unavailable`).
   */
  invite: withRight("manage_team")
    .input(z.object({ email: z.string().trim().max(320), rights }))
    .mutation(async ({ ctx, input }) => {
      const delivery = invitationDelivery();
      const checked = await checkInvitation(ctx.db, ctx.actor, input);
      const secret = newInvitationSecret();
      const a = await auth();
      const invitation = await plugin(() =>
        a.api.createInvitation({
          headers: sessionHeaders(ctx.headers),
          body: {
            email: checked.email,
            role: "member",
            organizationId: ctx.actor.tenantId,
            rights: checked.rights,
            secretHash: secret.hash,
          },
        }),
      );
      const { url } = await deliverInvitation(ctx.db, {
        invitationId: invitation.id,
        token: secret.token,
        delivery,
        inviter: ctx.staff.email,
      });
      return { id: invitation.id, email: invitation.email, mailed: delivery === "mail", url };
    }),

  /** Revokes a pending invitation; its link stops working at once. */
  revokeInvitation: withRight("manage_team")
    .input(z.object({ invitationId }))
    .mutation(async ({ ctx, input }) => {
      const inv = await invitationToRevoke(ctx.db, ctx.actor, input.invitationId);
      const a = await auth();
      await plugin(() =>
        a.api.cancelInvitation({ headers: sessionHeaders(ctx.headers), body: { invitationId: inv.id } }),
      );
      return { id: inv.id, state: "canceled" as const };
    }),

  /** Replaces a member's rights (not one's own, not an owner's; only rights the caller holds change). */
  setRights: withRight("manage_team")
    .input(z.object({ memberId: z.string().min(1).max(100), rights }))
    .mutation(async ({ ctx, input }) => ({
      rights: await setMemberRights(ctx.db, ctx.actor, input),
    })),

  /**
   * The working keys the member issued in this tenant, which removing them revokes (issue 76 item 1): the
   * removal dialog lists them before the removal is confirmed. The same checks as {@link remove}.
   */
  keysRevokedOnRemoval: withRight("manage_team")
    .input(z.object({ memberId: z.string().min(1).max(100) }))
    .query(({ ctx, input }) => keysRevokedWithMember(ctx.db, ctx.actor, input.memberId)),

  /**
   * Removes a member (not oneself, not an owner): their access to this tenant ends at once; their
   * sessions forget it, and end when they belong to no other tenant (issue 76 item 5). The keys they
   * issued are revoked in the removal's transaction (trigger of db/migrations/0018_key_issuer.sql).
   */
  remove: withRight("manage_team")
    .input(z.object({ memberId: z.string().min(1).max(100) }))
    .mutation(async ({ ctx, input }) => {
      const m = await memberToManage(ctx.db, ctx.actor, input.memberId);
      const a = await auth();
      await plugin(() =>
        a.api.removeMember({
          headers: sessionHeaders(ctx.headers),
          body: { memberIdOrEmail: m.id, organizationId: ctx.actor.tenantId },
        }),
      );
      // The plugin removes the membership only, and every request checks the membership, so the tenant is
      // closed to them now; their sessions are cut back to what their other memberships allow.
      await endMembershipSessions(ctx.db, { tenantId: ctx.actor.tenantId, staffUserId: m.staffUserId });
      return { id: m.id };
    }),

  /**
   * The invitation behind a link (public: the link's token is the secret). It does not say whether the
   * invited email has an account.
   */
  invitation: publicProcedure.input(z.object({ token })).query(({ ctx, input }) => viewInvitation(ctx.db, input.token)),

  /**
   * Joins with a new account: in one transaction the account of the invited email (with this password),
   * its membership with the invited rights, and the invitation accepted; the page then signs in. Refused
   * (409) when the invitation is not pending or the email already has an account (then sign in and
   * {@link accept}).
   */
  createAccount: publicProcedure
    .input(z.object({ token, name: z.string().max(200), password: z.string().max(1000) }))
    .mutation(({ ctx, input }) => createInvitedAccount(ctx.db, input)),

  /**
   * Accepts an invitation as the signed-in user: the organization plugin checks it is pending, unexpired
   * and addressed to this user's email, marks it accepted (once) and makes the membership with its rights.
   */
  accept: staffProcedure.input(z.object({ token })).mutation(async ({ ctx, input }) => {
    const id = await invitationIdOfToken(ctx.db, input.token);
    const a = await auth();
    const r = await plugin(() =>
      a.api.acceptInvitation({ headers: sessionHeaders(ctx.headers), body: { invitationId: id } }),
    );
    if (!r) throw new ApiError("not_found", "Invitation not found.");
    return { tenantId: r.invitation.organizationId };
  }),
});
