import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { WebhooksPanel } from "./webhooks-panel";

export const dynamic = "force-dynamic";

/** /console/webhooks: webhook subscriptions of one integration of the tenant and their delivery journal. */
export default async function WebhooksPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession("/console/webhooks", tenant);
  if (session.tenantId) {
    const qc = getQueryClient();
    const listOptions = trpcServer.integrations.list.queryOptions({ tenantId: session.tenantId });
    await Promise.all([
      qc.prefetchQuery(listOptions),
      qc.prefetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId })),
    ]);
    const integrations = qc.getQueryData(listOptions.queryKey) ?? [];
    // The panel opens on the first integration; without the manage_webhooks right this fails quietly and
    // the panel explains the right instead.
    if (integrations[0])
      await qc.prefetchQuery(
        trpcServer.webhooks.list.queryOptions({ tenantId: session.tenantId, integrationId: integrations[0].id }),
      );
  }
  return (
    <Shell session={session} current="/console/webhooks">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <WebhooksPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
