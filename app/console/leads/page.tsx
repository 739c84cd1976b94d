import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated, getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { LeadsPanel } from "./leads-panel";

export const dynamic = "force-dynamic";

/** `/console/leads`: the tenant's leads, the CRM mode and the status map (issue 70 item 6). */
export default async function LeadsPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/leads${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  let rights: readonly string[] = [];
  if (session.tenantId) {
    const qc = getQueryClient();
    const overview = await qc.fetchQuery(trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId }));
    rights = overview.rights;
  }
  return (
    <Shell session={session} current="/console/leads">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId &&
          (rights.includes("view_personal_data") ? (
            <LeadsPanel tenantId={session.tenantId} canManage={rights.includes("manage_integrations")} />
          ) : (
            <p className="notice">
              Leads are personal data: they need the <code>view_personal_data</code> right in this tenant; ask the
              owner.
            </p>
          ))}
      </HydrationBoundary>
    </Shell>
  );
}
