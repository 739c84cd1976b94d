import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated } from "@/server/trpc/server";
import { Shell } from "../_components/shell";
import { ArticlesPanel } from "./articles-panel";

export const dynamic = "force-dynamic";

/** `/console/articles`: the tenant's articles with a status filter (issue 71 item 6); open one to edit it. */
export default async function ArticlesPage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/articles${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  // Every member of the tenant may see articles: they carry no personal data (server/trpc/routers/articles.ts).
  return (
    <Shell session={session} current="/console/articles">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <ArticlesPanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
