import { optionalConsoleStaff } from "@/server/auth/console-session";
import { getQueryClient, trpcServer } from "@/server/trpc/server";
import { AcceptInvitation } from "./accept-invitation";

export const dynamic = "force-dynamic";

/**
 * `/console/invitations/<token>`: the page an invitation link opens (public; the token is the secret,
 * mailed to the invited address only). A new person sets a password; someone with an account signs in;
 * either then joins the tenant.
 */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const staff = await optionalConsoleStaff();
  const invitation = await getQueryClient()
    .fetchQuery(trpcServer.team.invitation.queryOptions({ token }))
    .catch(() => null);
  return (
    <div className="console bare">
      <main className="card">
        <h1>Invitation to the console</h1>
        {invitation ? (
          <AcceptInvitation token={token} invitation={invitation} signedInAs={staff?.email ?? null} />
        ) : (
          <p className="notice" role="alert">
            This invitation link is not valid. Ask the person who invited you for a new one.
          </p>
        )}
      </main>
    </div>
  );
}
