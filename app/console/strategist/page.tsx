import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { StrategistPanel } from "./strategist-panel";

export const dynamic = "force-dynamic";

/**
 * `/console/strategist` (issue 73 item 5): the strategist's reports, its topics and actions with their
 * decisions, and a paid chat with it.
 */
export default async function StrategistPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/strategist${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  // Every member of the tenant may use the strategist: no right, no preview (server/trpc/routers/strategist.ts).
  return (
    <Shell session={session} current="/console/strategist">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <StrategistPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
