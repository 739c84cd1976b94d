"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { useTRPC } from "../_components/trpc-provider";

const DONE = new Set(["succeeded", "failed"]);

/**
 * One ordered article's progress (issue 72 item 5): the job read every second until it succeeded or
 * failed; its status, the error's message on failure, the cost charged once done, and on success "Open
 * draft" to the article's editor. When it is done the articles list is read again, so the draft shows in it.
 */
export function GenerationProgress({ tenantId, jobId, what }: { tenantId: string; jobId: string; what: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const job = useQuery(
    trpc.articleGeneration.job.queryOptions(
      { tenantId, id: jobId },
      {
        refetchInterval: (q) => (q.state.data && DONE.has(q.state.data.status) ? false : 1000),
        staleTime: 0,
      },
    ),
  );
  const j = job.data;
  const finished = j ? DONE.has(j.status) : false;
  useEffect(() => {
    if (finished) void qc.invalidateQueries({ queryKey: trpc.articles.list.queryKey() });
  }, [finished, qc, trpc]);
  return (
    <li className="generation" data-testid="generation-job" aria-busy={!finished}>
      <span>{what}</span>{" "}
      {j ? (
        <span className={`badge ${j.status}`} data-testid="generation-status">
          {j.status}
        </span>
      ) : job.error ? null : (
        <span className="hint">reading…</span>
      )}
      {j && !finished && <span className="hint"> Writing takes up to a few minutes; this page follows it.</span>}
      {j?.usage && (
        <span className="hint">
          {" "}
          Cost {j.usage.cost.amount} {j.usage.cost.currency} ({j.usage.model}).
        </span>
      )}
      {j?.status === "succeeded" && j.article_id && (
        <>
          {" "}
          <Link href={`/console/articles/${j.article_id}?tenant=${tenantId}`}>Open draft</Link>
        </>
      )}
      {j?.status === "failed" && (
        <p className="error" role="alert" style={{ margin: "6px 0 0" }}>
          {j.error?.message ?? "The article could not be written."}
        </p>
      )}
      {job.error && (
        <p className="error" role="alert" style={{ margin: "6px 0 0" }}>
          {job.error.message}
        </p>
      )}
    </li>
  );
}
