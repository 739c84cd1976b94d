import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { TeamPanel } from "./team-panel";

export const dynamic = "force-dynamic";

/** `/console/team`: members and their rights, invitations (issue 19 item 2). */
export default async function TeamPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/team${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  if (session.tenantId) {
    const qc = getQueryClient();
    const overview = await qc.fetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId }));
    await Promise.all([
      qc.prefetchQuery(trpcServer.team.members.queryOptions({ tenantId: session.tenantId })),
      overview.rights.includes("manage_team")
        ? qc.prefetchQuery(trpcServer.team.invitations.queryOptions({ tenantId: session.tenantId }))
        : null,
    ]);
  }
  return (
    <Shell session={session} current="/console/team">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <TeamPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
