import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { UsagePanel } from "./usage-panel";

export const dynamic = "force-dynamic";

/** `/console/usage`: charts of the tenant's last 30 days, for any member (issue 19 item 6). */
export default async function UsagePage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/usage${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  if (session.tenantId) {
    await getQueryClient().prefetchQuery(trpcServer.usage.summary.queryOptions({ tenantId: session.tenantId }));
  }
  return (
    <Shell session={session} current="/console/usage">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <UsagePanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
