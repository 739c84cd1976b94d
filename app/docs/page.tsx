import type { Metadata } from "next";
import { connection } from "next/server";
import { listDocPages, renderDocPage } from "@/server/lib/docs-pages";
import { DocsFrame } from "./_components/docs-frame";

export const metadata: Metadata = { title: "Docs", description: "Guides to the public API v1 and the tenant console" };

/**
 * `/docs`: the guides' index, the README (what the product is, how to start, and its map of docs/),
 * beside a list of every page (issue 68 item 1). Rendered per request so Next.js's scripts carry this
 * response's CSP nonce (proxy.ts), and so an edited guide shows without a build.
 */
export default async function DocsIndexPage() {
  await connection();
  const [index, pages] = await Promise.all([renderDocPage(""), listDocPages()]);
  return (
    <DocsFrame pages={pages} current="">
      <article className="doc" dangerouslySetInnerHTML={{ __html: index!.html }} />
    </DocsFrame>
  );
}
