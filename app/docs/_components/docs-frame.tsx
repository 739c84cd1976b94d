import Link from "next/link";
import type { ReactNode } from "react";
import type { DocPageInfo } from "@/server/lib/docs-pages";
import "../../console/console.css";
import "./docs.css";

/**
 * Frame of the guides at /docs: the console's look (its sidebar, a top bar on phones) with every page of
 * the guides, then the API reference, the error codes and the console itself. The pages are rendered on
 * the server: without the browser's JavaScript every link still works as a plain one.
 * @param current the shown page's name (`""` for the index)
 */
export function DocsFrame({
  pages,
  current,
  children,
}: {
  pages: DocPageInfo[];
  current: string;
  children: ReactNode;
}) {
  return (
    <div className="console docs">
      <header className="sidebar">
        <Link href="/docs" className="brand">
          Platform <span>docs</span>
        </Link>
        <nav aria-label="Guides">
          <Link href="/docs" aria-current={current === "" ? "page" : undefined}>
            Start here
          </Link>
          {pages.map((p) => (
            <Link key={p.name} href={`/docs/${p.name}`} aria-current={current === p.name ? "page" : undefined}>
              {p.title}
            </Link>
          ))}
        </nav>
        <nav aria-label="Elsewhere" className="elsewhere">
          {/* A full page load: Swagger UI runs from its own script tags (app/docs/api/api-reference.tsx). */}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
          <a href="/docs/api">API reference</a>
          <Link href="/developers/errors">Error codes</Link>
          <Link href="/console">Console</Link>
        </nav>
      </header>
      <main>{children}</main>
    </div>
  );
}
