import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { SettingsPanel } from "./settings-panel";

export const dynamic = "force-dynamic";

export default async function SettingsPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/settings${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  if (session.tenantId) {
    const qc = getQueryClient();
    await qc.prefetchQuery(trpcServer.settings.get.queryOptions({ tenantId: session.tenantId }));
  }
  return (
    <Shell session={session} current="/console/settings">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <SettingsPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
