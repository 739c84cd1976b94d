import { requireConsoleSession } from "@/server/auth/console-session";
import { getQueryClient, trpcServer } from "@/server/trpc/server";
import { Shell } from "../../_components/shell";
import { LeadPanel } from "./lead-panel";

export const dynamic = "force-dynamic";

/** `/console/leads/<id>`: one lead, its editing under the lead's etag, timeline, scorings and disclosures. */
export default async function LeadPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ tenant?: string }>;
}) {
  const { id } = await params;
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/leads/${encodeURIComponent(id)}${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  let allowed = false;
  if (session.tenantId) {
    const overview = await getQueryClient().fetchQuery(
      trpcServer.tenants.overview.queryOptions({ tenantId: session.tenantId }),
    );
    allowed = overview.rights.includes("view_personal_data");
  }
  return (
    <Shell session={session} current="/console/leads">
      {session.tenantId &&
        (allowed ? (
          // Scoring needs the right of the API's leads:score, the same view_personal_data (rightFor).
          <LeadPanel tenantId={session.tenantId} id={id} canScore={allowed} />
        ) : (
          <p className="notice">
            Leads are personal data: they need the <code>view_personal_data</code> right in this tenant.
          </p>
        ))}
    </Shell>
  );
}
