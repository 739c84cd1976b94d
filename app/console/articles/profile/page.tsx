import { HydrationBoundary } from "@tanstack/react-query";
import { requireConsoleSession } from "@/server/auth/console-session";
import { dehydrated } from "@/server/trpc/server";
import { Shell } from "../../_components/shell";
import { ProfilePanel } from "./profile-panel";

export const dynamic = "force-dynamic";

/**
 * `/console/articles/profile`: the tenant's editorial profile (issue 72 items 1 and 5), the form and the
 * live preview of the writing instructions it produces. Generation needs its niche.
 */
export default async function EditorialProfilePage({ searchParams }: { searchParams: Promise<{ tenant?: string }> }) {
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/articles/profile${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  // Every member of the tenant may edit the profile, as they may order articles
  // (server/trpc/routers/article-generation.ts).
  return (
    <Shell session={session} current="/console/articles">
      <HydrationBoundary state={dehydrated()}>
        {session.tenantId && <ProfilePanel tenantId={session.tenantId} />}
      </HydrationBoundary>
    </Shell>
  );
}
