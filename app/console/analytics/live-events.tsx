"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";

/** How often the live list asks for new events, ms. */
const LIVE_REFRESH_MS = 3_000;

/** What intake did to the CRM, as a reader says it. */
const EFFECT: Record<string, string> = {
  lead_created: "Lead created",
  lead_won: "Lead won",
  lead_value_set: "Lead value set",
};

/**
 * "Live events" of the Analytics page: the last 50 events intake received in the console's mode, newest
 * first, with their status (accepted, duplicate, rejected and its first error), refreshed every 3 s while
 * the page is open. No contact data: intake stores none.
 */
export function LiveEvents({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const live = useQuery(
    trpc.analytics.live.queryOptions({ tenantId }, { refetchInterval: LIVE_REFRESH_MS, staleTime: 0 }),
  );
  return (
    <section aria-labelledby="live-events-title">
      <h2 id="live-events-title">Live events</h2>
      <p className="hint">The last 50 events received, newest first; refreshed every 3 seconds.</p>
      <QueryState isLoading={live.isLoading} error={live.error}>
        {live.data?.length === 0 ? (
          <p className="empty" data-testid="live-events-empty">
            No events received yet. Send a first batch to <code>POST /intake/events</code>: see the{" "}
            <Link href="/docs/event-intake">event intake guide</Link>.
          </p>
        ) : (
          <TableWrap label="Live events">
            <table data-testid="live-events">
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Status</th>
                  <th scope="col">Type</th>
                  <th scope="col" style={{ minWidth: "8em" }}>
                    Event id
                  </th>
                  <th scope="col">Source</th>
                  <th scope="col">Page</th>
                  <th scope="col">Effect or error</th>
                </tr>
              </thead>
              <tbody>
                {live.data?.map((e, i) => (
                  <tr key={`${e.receivedAt}-${e.eventId ?? ""}-${i}`}>
                    <td>
                      <time dateTime={e.receivedAt}>{new Date(e.receivedAt).toLocaleString()}</time>
                    </td>
                    <td>
                      <span className={`badge ${e.status}`}>{e.status}</span>
                    </td>
                    <td>{e.type ?? "—"}</td>
                    <td>
                      <code>{e.eventId ?? "—"}</code>
                    </td>
                    <td>{e.source ?? "—"}</td>
                    <td>{e.pagePath ?? "—"}</td>
                    <td>
                      {e.error ? (
                        <>
                          <code>{e.error.field}</code> {e.error.message}
                        </>
                      ) : e.leadEffect ? (
                        (EFFECT[e.leadEffect] ?? e.leadEffect)
                      ) : (
                        "—"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </QueryState>
    </section>
  );
}
