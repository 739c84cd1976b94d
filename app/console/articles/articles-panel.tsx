"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { FilterForm, useFilters } from "../_components/filter-form";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";
import { GenerateArticle } from "./generate-article";

const STATUSES = [
  "draft",
  "review",
  "approved",
  "handed_off",
  "published",
  "rejected",
  "transferred",
  "external",
] as const;
type Status = (typeof STATUSES)[number];
type Cursor = [string | null, string];

/**
 * The tenant's articles in the console's mode (issue 71 item 6), in the API's order (last updated first)
 * with a status filter and keyset pages; the title opens the article's page. Above them, "Generate article"
 * and the link to the editorial profile (issue 72 item 5).
 */
export function ArticlesPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const trail = useKeysetTrail<Cursor>();
  const filters = useFilters<{ status?: Status }>({}, trail.reset);
  const page = useQuery(
    trpc.articles.list.queryOptions({ tenantId, status: filters.filters.status, cursor: trail.cursor, limit: 50 }),
  );
  return (
    <>
      <h1>Articles</h1>
      <p className="hint">
        The tenant&apos;s SEO articles. Open one to edit it, approve it and publish it to one of your{" "}
        <Link href={`/console/sites?tenant=${tenantId}`}>sites</Link> or hand it off to publish yourself.{" "}
        <Link href={`/console/articles/profile?tenant=${tenantId}`}>Editorial profile</Link>: how generated articles are
        written.
      </p>
      <GenerateArticle tenantId={tenantId} />
      <FilterForm label="Article filters" state={filters}>
        <label>
          Status{" "}
          <select
            value={filters.draft.status ?? ""}
            onChange={(e) => filters.setDraft({ status: (e.target.value || undefined) as Status | undefined })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace("_", " ")}
              </option>
            ))}
          </select>
        </label>
      </FilterForm>
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.articles.length === 0}
        emptyText="No articles under these filters."
      >
        <TableWrap label="Articles">
          <table>
            <thead>
              <tr>
                <th>Title</th>
                <th>Status</th>
                <th>Slug</th>
                <th>Words</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {page.data?.articles.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link href={`/console/articles/${a.id}?tenant=${tenantId}`}>{a.title}</Link>
                  </td>
                  <td>{a.status.replace("_", " ")}</td>
                  <td>{a.slug ? <code>{a.slug}</code> : "—"}</td>
                  <td>{a.word_count}</td>
                  <td>{a.updated_at ? new Date(a.updated_at).toLocaleString() : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <KeysetPager trail={trail} next={page.data?.next} />
    </>
  );
}
