import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { JournalPanel } from "./journal-panel";

export const dynamic = "force-dynamic";

/** `/console/journal`: the disclosure journal, for staff with `view_personal_data` (issue 19 item 7). */
export default async function JournalPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/journal${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  let allowed = false;
  if (session.tenantId) {
    const qc = getQueryClient();
    const overview = await qc.fetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId }));
    allowed = overview.rights.includes("view_personal_data");
    if (allowed) {
      await Promise.all([
        qc.prefetchQuery(trpcServer.integrations.list.queryOptions({ tenantId: session.tenantId })),
        qc.prefetchQuery(
          trpcServer.journal.list.queryOptions({ tenantId: session.tenantId, filters: {}, cursor: null, limit: 50 }),
        ),
      ]);
    }
  }
  return (
    <Shell session={session} current="/console/journal">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId &&
          (allowed ? (
            <JournalPanel tenantId={session.tenantId} />
          ) : (
            <p className="notice">
              The disclosure journal needs the <code>view_personal_data</code> right in this tenant; ask the owner.
            </p>
          ))}
      </HydrationBoundary>
    </Shell>
  );
}
