import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../../_components/shell";
import { IntegrationDetail } from "./integration-detail";

export const dynamic = "force-dynamic";

export default async function IntegrationPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ tenant?: string }>;
}) {
  const [{ id }, { tenant }] = await Promise.all([params, searchParams]);
  const session = await requireConsoleSession(`/console/integrations/${id}`, tenant);
  const valid = /^[0-9a-f-]{36}$/i.test(id);
  if (session.tenantId && valid) {
    const qc = getQueryClient();
    await Promise.all([
      qc.prefetchQuery(trpcServer.integrations.get.queryOptions({ tenantId: session.tenantId, integrationId: id })),
      qc.prefetchQuery(trpcServer.integrations.keys.queryOptions({ tenantId: session.tenantId, integrationId: id })),
      qc.prefetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId })),
    ]);
  }
  return (
    <Shell session={session} current="/console/integrations">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId &&
          (valid ? (
            <IntegrationDetail tenantId={session.tenantId} integrationId={id} />
          ) : (
            <p className="error">Integration was not found.</p>
          ))}
      </HydrationBoundary>
    </Shell>
  );
}
