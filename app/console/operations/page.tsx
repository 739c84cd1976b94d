import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { OperationsPanel } from "./operations-panel";

export const dynamic = "force-dynamic";

export default async function OperationsPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/operations${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  if (session.tenantId) {
    const qc = getQueryClient();
    await qc.prefetchQuery(trpcServer.operations.settings.queryOptions({ tenantId: session.tenantId }));
  }
  return (
    <Shell session={session} current="/console/operations">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <OperationsPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
