import { createAccessControl } from "better-auth/plugins/access";
import { organization } from "better-auth/plugins/organization";
import { defaultStatements, ownerAc } from "better-auth/plugins/organization/access";
import type { Db } from "@/db/client";
import { applyInvitedRights, checkInvitation, INVITATION_TTL_S } from "@/server/services/team/invitations";
import { staffMembership } from "@/server/services/tenants/memberships";

const ac = createAccessControl(defaultStatements);
/**
 * What the plugin lets a non-owner membership do with the team. The plugin's roles are one permission set
 * per role; our rights are per member (a `member` may hold `manage_team`, another `member` not), which a
 * static role cannot say. So the plugin's roles let any member invite, revoke and remove, and the real gate
 * is the `manage_team` right (plus "give only rights you hold"): checked by every tRPC procedure of the team
 * (server/trpc/routers/team.ts) and again in `beforeCreateInvitation` below. The plugin's HTTP routes are
 * not served (server/auth/handler.ts refuses `/organization/*`): only our procedures call it.
 * The plugin still enforces what it knows: only an owner touches an owner, the last owner stays.
 */
const teamRole = ac.newRole({ invitation: ["create", "cancel"], member: ["update", "delete"] });

/**
 * better-auth's organization plugin mapped onto our tables: organization → `tenants`, member →
 * `memberships` (our `rights` as an additional field), invitation → `staff_invitations` (with the invited
 * `rights` and the hash of the link's secret, `secretHash`), the session's active organization →
 * `staff_sessions.active_organization_id`. The plugin mails nothing: the team procedures deliver the
 * link themselves (server/services/team/invitations.ts `deliverInvitation`), so a link the mail server
 * refused withdraws its invitation instead of being lost in the background. Tenants are made
 * by operators (`tenant:create`), never through the plugin, so organization creation is off, and the
 * organization model's `slug`, `logo` and `metadata` (which tenants do not have) are taken out of the
 * plugin's schema: nothing we call writes them, and the one read of a slug (`getInvitation`) is not used.
 */
export function teamPlugin(db: Db) {
  const plugin = organization({
    ac,
    roles: { owner: ownerAc, admin: teamRole, member: teamRole },
    allowUserToCreateOrganization: false,
    invitationExpiresIn: INVITATION_TTL_S,
    // The link's secret (a 256-bit token, not the id) is mailed to the invited address only, and the
    // account of a new member is made from that link, so there is no separate email verification to wait for.
    requireEmailVerificationOnInvitation: false,
    schema: {
      organization: { modelName: "organization", fields: { name: "name", createdAt: "createdAt" } },
      member: {
        modelName: "member",
        fields: { organizationId: "tenantId", userId: "staffUserId", role: "role", createdAt: "createdAt" },
        additionalFields: { rights: { type: "string[]", required: false, input: false, defaultValue: [] } },
      },
      invitation: {
        modelName: "invitation",
        fields: { organizationId: "tenantId", inviterId: "inviterId", expiresAt: "expiresAt" },
        additionalFields: {
          rights: { type: "string[]", required: false, input: true, defaultValue: [] },
          secretHash: { type: "string", required: false, input: true },
        },
      },
      session: { fields: { activeOrganizationId: "activeOrganizationId" } },
    },
    organizationHooks: {
      // Defence in depth: the procedures check the same before calling the plugin.
      async beforeCreateInvitation({ invitation, inviter, organization }) {
        const { actor } = await staffMembership(db, inviter.id, organization.id);
        await checkInvitation(db, actor, {
          email: invitation.email,
          rights: ((invitation as { rights?: string[] }).rights ?? []) as string[],
        });
      },
      async afterAcceptInvitation({ invitation, user, organization }) {
        await applyInvitedRights(db, { invitationId: invitation.id, tenantId: organization.id, staffUserId: user.id });
      },
    },
  });
  const fields = plugin.schema.organization.fields as Record<string, unknown>;
  for (const f of ["slug", "logo", "metadata"]) delete fields[f];
  return plugin;
}
