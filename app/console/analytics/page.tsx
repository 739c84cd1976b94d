import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { AnalyticsPanel } from "./analytics-panel";

export const dynamic = "force-dynamic";

/**
 * `/console/analytics` (issue 74 item 7): sessions, leads, revenue and traffic sources of the last 30 days
 * from the daily rollups, and the live list of the events intake received. Any member; no preview needed
 * to see it (server/trpc/routers/analytics.ts).
 */
export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/analytics${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  // The charts are prefetched; the live list is read by the browser (it polls, and shows local times).
  if (session.tenantId)
    await getQueryClient().prefetchQuery(trpcServer.analytics.overview.queryOptions({ tenantId: session.tenantId }));
  return (
    <Shell session={session} current="/console/analytics">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <AnalyticsPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
