import { requireConsoleSession } from "@/server/auth/console-session";
import { Shell } from "../../_components/shell";
import { ArticlePanel } from "./article-panel";

export const dynamic = "force-dynamic";

/** `/console/articles/<id>`: one article, its editor, approval, publication and reader view (issue 71 item 6). */
export default async function ArticlePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ tenant?: string }>;
}) {
  const { id } = await params;
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/articles/${encodeURIComponent(id)}${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  // Every member of the tenant may read, edit, approve and publish articles (server/trpc/routers/articles.ts).
  return (
    <Shell session={session} current="/console/articles">
      {session.tenantId && <ArticlePanel tenantId={session.tenantId} id={id} />}
    </Shell>
  );
}
