import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { SitesPanel } from "./sites-panel";

export const dynamic = "force-dynamic";

/** `/console/sites`: the tenant's websites that a site connector publishes articles to (issue 71 item 6). */
export default async function SitesPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/sites${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  let rights: readonly string[] = [];
  if (session.tenantId) {
    const overview = await getQueryClient().fetchQuery(
      trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId }),
    );
    rights = overview.rights;
  }
  return (
    <Shell session={session} current="/console/sites">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && (
          // Adding a site, rotating and revoking its token are credentials like API keys: manage_integrations.
          <SitesPanel tenantId={session.tenantId} canManage={rights.includes("manage_integrations")} />
        )}
      </HydrationBoundary>
    </Shell>
  );
}
