import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { WalletPanel } from "./wallet-panel";

export const dynamic = "force-dynamic";

export default async function WalletPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/wallet${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  if (session.tenantId) {
    const qc = getQueryClient();
    await Promise.all([
      qc.prefetchQuery(trpcServer.wallet.get.queryOptions({ tenantId: session.tenantId })),
      qc.prefetchQuery(trpcServer.wallet.dailySpend.queryOptions({ tenantId: session.tenantId })),
      qc.prefetchQuery(trpcServer.wallet.payments.queryOptions({ tenantId: session.tenantId, limit: 50 })),
    ]);
  }
  return (
    <Shell session={session} current="/console/wallet">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <WalletPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
