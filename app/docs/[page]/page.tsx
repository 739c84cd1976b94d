import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { listDocPages, renderDocPage } from "@/server/lib/docs-pages";
import { DocsFrame } from "../_components/docs-frame";

type Props = { params: Promise<{ page: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const doc = await renderDocPage((await params).page);
  return { title: doc ? `${doc.title} · Docs` : "Docs" };
}

/**
 * `/docs/<page>`: one guide, `docs/<page>.md` rendered (server/lib/docs-pages.ts; `security` is the
 * repository's SECURITY.md), or 404 when there is no such page. `/docs/api` stays the API reference: a
 * static route wins over this one. Rendered per request for the CSP nonce (proxy.ts).
 */
export default async function DocPage({ params }: Props) {
  await connection();
  const { page } = await params;
  const [doc, pages] = await Promise.all([renderDocPage(page), listDocPages()]);
  if (!doc) notFound();
  return (
    <DocsFrame pages={pages} current={page}>
      <article className="doc" dangerouslySetInnerHTML={{ __html: doc.html }} />
    </DocsFrame>
  );
}
