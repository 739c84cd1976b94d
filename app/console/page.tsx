import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "./_components/shell";
import { Overview } from "./overview";

export const dynamic = "force-dynamic";

export default async function ConsoleHome({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession("/console", tenant);
  if (session.tenantId)
    await getQueryClient().prefetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId }));
  return (
    <Shell session={session} current="/console">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <Overview tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
