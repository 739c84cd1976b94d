"use client";

import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { TableWrap } from "../_components/table-wrap";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { FilterForm, useFilters, IntegrationFilter, RequestIdFilter } from "../_components/filter-form";

type Cursor = { createdAt: string; id: number };
type StatusClass = "2xx" | "3xx" | "4xx" | "5xx";
type Filters = { integrationId?: string; statusClass?: StatusClass; path?: string; requestId?: string };

const STATUS_CLASSES: StatusClass[] = ["2xx", "4xx", "5xx", "3xx"];

/** Badge class of a status: ok for 2xx, low for 4xx, negative for 5xx. */
function statusBadge(status: number): string {
  if (status < 300) return "ok";
  if (status < 500) return "low";
  return "negative";
}

/**
 * The request log (issue 19 item 5), like Stripe's: every public API request of the last 30 days,
 * newest first, filtered by integration, status class, path and request id, with Newer/Older pages.
 * Rows arrive about a second after their answer (the server writes them in batches); Refresh reloads.
 */
export function RequestsPanel({ tenantId, initialRequestId }: { tenantId: string; initialRequestId?: string }) {
  const trpc = useTRPC();
  const trail = useKeysetTrail<Cursor>();
  const form = useFilters<Filters>({ requestId: initialRequestId }, trail.reset);
  const { draft, setDraft, filters } = form;
  const cursor = trail.cursor;
  const integrations = useQuery(trpc.integrations.list.queryOptions({ tenantId }));
  // The log grows while the page is open: a page shown again (Clear back to no filters, a filter tried
  // before) is fetched anew instead of coming from the 30 s cache, which would hide requests made since;
  // the page the server rendered is not fetched twice on load.
  const page = useQuery({
    ...trpc.requestLog.list.queryOptions({ tenantId, filters, cursor, limit: 50 }),
    staleTime: 0,
    refetchOnMount: false,
  });

  const filtered = Object.keys(filters).length > 0;

  return (
    <>
      <h1>API requests</h1>
      <p className="hint">
        Every request to the public API with a key of this tenant in the last 30 days: status, problem code, latency and
        the caller&apos;s address. <strong>Replayed</strong> marks an answer repeated from an earlier request with the
        same Idempotency-Key (nothing was done twice). A request shows here about a second after its answer; requests
        without a valid key belong to no tenant and are not listed.
      </p>
      <FilterForm
        label="Request filters"
        state={form}
        actions={
          <button type="button" className="secondary" disabled={page.isFetching} onClick={() => void page.refetch()}>
            {page.isFetching ? "Refreshing…" : "Refresh"}
          </button>
        }
      >
        <IntegrationFilter
          integrations={integrations.data}
          value={draft.integrationId}
          onChange={(integrationId) => setDraft({ ...draft, integrationId })}
        />
        <label>
          Status{" "}
          <select
            value={draft.statusClass ?? ""}
            onChange={(e) => setDraft({ ...draft, statusClass: (e.target.value || undefined) as StatusClass })}
          >
            <option value="">all</option>
            {STATUS_CLASSES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label>
          Path{" "}
          <input
            value={draft.path ?? ""}
            placeholder="/cards"
            title="A path starting with / matches paths that start with it; other text matches paths containing it."
            onChange={(e) => setDraft({ ...draft, path: e.target.value })}
          />
        </label>
        <RequestIdFilter value={draft.requestId} onChange={(requestId) => setDraft({ ...draft, requestId })} />
      </FilterForm>
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.rows.length === 0}
        emptyText={
          filtered
            ? "No requests match these filters in the last 30 days. A request made just now shows after a second; press Refresh."
            : "No API requests in the last 30 days. Call the API with a key of this tenant (see API reference) and they show here."
        }
      >
        <TableWrap label="API requests">
          <table>
            <caption className="hint" style={{ textAlign: "left" }}>
              Newest first, times in your browser&apos;s time zone.
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Request</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Integration and key</th>
                <th scope="col">From</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              {page.data?.rows.map((r) => (
                <tr key={r.id}>
                  <td>{new Date(r.createdAt).toLocaleString()}</td>
                  <td>
                    <code>
                      {r.method} {r.path}
                    </code>
                  </td>
                  <td>
                    <span className={`badge ${statusBadge(r.status)}`}>{r.status}</span>
                    {r.replayed && (
                      <>
                        {" "}
                        <span
                          className="badge"
                          title="Answered from an earlier request with the same Idempotency-Key (Idempotent-Replayed: true): nothing was done again."
                        >
                          Replayed
                        </span>
                      </>
                    )}
                    {r.problemCode && (
                      <div>
                        <a className="hint" href={`/developers/errors#${r.problemCode}`}>
                          {r.problemCode}
                        </a>
                      </div>
                    )}
                  </td>
                  <td>{r.latencyMs < 10 ? r.latencyMs.toFixed(1) : Math.round(r.latencyMs)} ms</td>
                  <td>
                    {r.integrationName ?? <span className="hint">deleted integration</span>}
                    {r.keyId && (
                      <div>
                        <code className="hint">{r.keyId}</code>
                      </div>
                    )}
                  </td>
                  <td>{r.callerAddress ?? <span className="hint">unknown</span>}</td>
                  <td>
                    <code>{r.requestId}</code>
                  </td>
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
