import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { IntegrationsPanel } from "./integrations-panel";

export const dynamic = "force-dynamic";

export default async function IntegrationsPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession("/console/integrations", tenant);
  if (session.tenantId) {
    const qc = getQueryClient();
    await Promise.all([
      qc.prefetchQuery(trpcServer.integrations.list.queryOptions({ tenantId: session.tenantId })),
      qc.prefetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId })),
    ]);
  }
  return (
    <Shell session={session} current="/console/integrations">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <IntegrationsPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
