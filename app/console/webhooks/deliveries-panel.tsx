"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { TableWrap } from "../_components/table-wrap";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { AttemptsDialog } from "./attempts-dialog";
import { ResendDeadSince } from "./resend-dead-since";

const STATES = ["pending", "delivered", "failed", "dead"] as const;
type State = (typeof STATES)[number];
type Cursor = { createdAt: string; id: string };

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

/**
 * The delivery journal of one subscription (30 days, newest first) with a state filter, each delivery's
 * attempt log, resend of a dead or failed delivery and of every dead one since a moment (issue 75 items 2, 3).
 */
export function DeliveriesPanel({ tenantId, subscriptionId }: { tenantId: string; subscriptionId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [state, setState] = useState<State | null>(null);
  const trail = useKeysetTrail<Cursor>();
  const cursor = trail.cursor;
  const page = useQuery(trpc.webhooks.deliveries.queryOptions({ tenantId, subscriptionId, state, cursor }));
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() }),
      qc.invalidateQueries({ queryKey: trpc.webhooks.delivery.queryKey() }),
    ]);
  const resend = useMutation(trpc.webhooks.resend.mutationOptions({ onSuccess: () => void refresh() }));
  return (
    <>
      <h2>Delivery journal</h2>
      <div className="row">
        <label>
          State{" "}
          <select
            value={state ?? ""}
            onChange={(e) => {
              setState((e.target.value || null) as State | null);
              trail.reset();
            }}
          >
            <option value="">all</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="secondary" onClick={() => void page.refetch()}>
          Refresh
        </button>
      </div>
      <ResendDeadSince tenantId={tenantId} subscriptionId={subscriptionId} onDone={() => void refresh()} />
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.items.length === 0}
        emptyText="No deliveries in the last 30 days."
      >
        <TableWrap label="Delivery journal">
          <table>
            <thead>
              <tr>
                <th>Created</th>
                <th>Event</th>
                <th>State</th>
                <th>Attempt</th>
                <th>Status code</th>
                <th>Duration, ms</th>
                <th>Error</th>
                <th>Next attempt</th>
                <th>Delivered</th>
                <th>
                  <span className="hint">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data?.items.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.created_at)}</td>
                  <td>
                    <code>{d.event_type}</code>
                    <div className="hint">{d.event_id}</div>
                  </td>
                  <td>
                    <span className={`badge ${d.state}`}>{d.state}</span>
                  </td>
                  <td>{d.attempt}</td>
                  <td>{d.status_code ?? "—"}</td>
                  <td>{d.duration_ms ?? "—"}</td>
                  <td>{d.error ? <code>{d.error}</code> : "—"}</td>
                  <td>{when(d.next_attempt_at)}</td>
                  <td>{when(d.delivered_at)}</td>
                  <td>
                    <div className="row">
                      <AttemptsDialog
                        tenantId={tenantId}
                        subscriptionId={subscriptionId}
                        deliveryId={d.id}
                        eventType={d.event_type}
                      />
                      {(d.state === "dead" || d.state === "failed") && (
                        <button
                          type="button"
                          aria-label={`Resend delivery ${d.id}`}
                          disabled={resend.isPending}
                          onClick={() => resend.mutate({ tenantId, deliveryId: d.id })}
                        >
                          Resend
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <ErrorBox error={resend.error as ConsoleError | null} />
      {resend.isSuccess && (
        <p className="notice" role="status">
          Delivery queued again; it goes out with a fresh retry schedule.
        </p>
      )}
      <KeysetPager trail={trail} next={page.data?.next} />
    </>
  );
}
