import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { RequestsPanel } from "./requests-panel";

export const dynamic = "force-dynamic";

/**
 * `/console/requests`: the tenant's public API request log of the last 30 days, for any member (issue 19
 * item 5). `?request_id=req_...` opens it filtered to that request.
 */
export default async function RequestsPage({
  searchParams,
}: {
  searchParams: Promise<{ tenant?: string; request_id?: string }>;
}) {
  const { tenant, request_id } = await searchParams;
  const requestId = request_id?.trim().slice(0, 200) || undefined;
  const session = await requireConsoleSession(
    `/console/requests${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  if (session.tenantId) {
    const qc = getQueryClient();
    await Promise.all([
      qc.prefetchQuery(trpcServer.integrations.list.queryOptions({ tenantId: session.tenantId })),
      qc.prefetchQuery(
        trpcServer.requestLog.list.queryOptions({
          tenantId: session.tenantId,
          filters: requestId ? { requestId } : {},
          cursor: null,
          limit: 50,
        }),
      ),
    ]);
  }
  return (
    <Shell session={session} current="/console/requests">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <RequestsPanel tenantId={session.tenantId} initialRequestId={requestId} />}
      </HydrationBoundary>
    </Shell>
  );
}
