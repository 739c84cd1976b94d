"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { TOPIC_STATUSES, type StrategistTopic } from "@/server/schemas/strategist";
import { ErrorBox } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";

type Status = (typeof TOPIC_STATUSES)[number];
type Order = "newest" | "score";

/** Approve (a proposed topic) and Reject (a proposed or approved one), with the refusal under them. */
function TopicDecision({ tenantId, topic }: { tenantId: string; topic: StrategistTopic }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.strategist.pathKey() });
  const approve = useMutation(trpc.strategist.approveTopic.mutationOptions({ onSuccess: refresh }));
  const reject = useMutation(trpc.strategist.rejectTopic.mutationOptions({ onSuccess: refresh }));
  const busy = approve.isPending || reject.isPending;
  const name = topic.title ?? "untitled topic";
  return (
    <>
      <div className="row">
        {topic.status === "proposed" && (
          <button
            type="button"
            disabled={busy}
            aria-label={`Approve ${name}`}
            onClick={() => approve.mutate({ tenantId, id: topic.id })}
          >
            Approve
          </button>
        )}
        {(topic.status === "proposed" || topic.status === "approved") && (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            aria-label={`Reject ${name}`}
            onClick={() => reject.mutate({ tenantId, id: topic.id })}
          >
            Reject
          </button>
        )}
      </div>
      <ErrorBox error={approve.error ?? reject.error} />
    </>
  );
}

/**
 * The Topics section (issue 73 item 5): the tenant's topics in any status or one, newest first or best trend
 * first; Approve on a proposed topic (an article can then be generated from it, Articles → Generate
 * article), Reject on a proposed or approved one.
 */
export function TopicsSection({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const [order, setOrder] = useState<Order>("newest");
  const topics = useQuery(trpc.strategist.topics.queryOptions({ tenantId, status, order }));
  return (
    <section aria-labelledby="strategist-topics-title">
      <h2 id="strategist-topics-title">Topics</h2>
      <p className="hint">
        Article topics the strategist proposed. Approve the ones worth writing; a proposed topic expires unless decided.
      </p>
      <div className="row" role="group" aria-label="Topic filters">
        <label>
          Status{" "}
          <select value={status ?? ""} onChange={(e) => setStatus((e.target.value || undefined) as Status | undefined)}>
            <option value="">any</option>
            {TOPIC_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order{" "}
          <select value={order} onChange={(e) => setOrder(e.target.value as Order)}>
            <option value="newest">newest first</option>
            <option value="score">best trend first</option>
          </select>
        </label>
      </div>
      <QueryState
        isLoading={topics.isLoading}
        error={topics.error}
        empty={topics.data?.length === 0}
        emptyText="No topics under this filter."
      >
        <TableWrap label="Topics">
          <table>
            <thead>
              <tr>
                <th>Title</th>
                <th>Status</th>
                <th>Trend score</th>
                <th>Rationale</th>
                <th>Decision</th>
              </tr>
            </thead>
            <tbody>
              {topics.data?.map((t) => (
                <tr key={t.id} data-testid="strategist-topic">
                  <td>{t.title ?? "Untitled topic"}</td>
                  <td>
                    <span className={`badge ${t.status}`}>{t.status}</span>
                  </td>
                  <td>{t.trend_score ?? "not scored"}</td>
                  <td>{t.rationale ?? "—"}</td>
                  <td>
                    <TopicDecision tenantId={tenantId} topic={t} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
    </section>
  );
}
