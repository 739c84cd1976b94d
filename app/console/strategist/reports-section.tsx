"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";
import { ReportView } from "./report-view";

/** The Reports section (issue 73 item 5): the strategist's daily and weekly reports, newest first; "Open" shows one. */
export function ReportsSection({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const trail = useKeysetTrail<[string, string]>();
  const page = useQuery(trpc.strategist.reports.queryOptions({ tenantId, cursor: trail.cursor, limit: 10 }));
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section aria-labelledby="strategist-reports-title">
      <h2 id="strategist-reports-title">Reports</h2>
      <p className="hint">A daily report every morning and a weekly one on Mondays, written from your own data.</p>
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.reports.length === 0}
        emptyText="No reports yet: the first one is written overnight."
      >
        <TableWrap label="Reports">
          <table>
            <thead>
              <tr>
                <th>Date</th>
                <th>Type</th>
                <th>Summary</th>
                <th>Actions</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {page.data?.reports.map((r) => (
                <tr key={r.id}>
                  <td>{r.report_date}</td>
                  <td>{r.report_type}</td>
                  <td>{r.summary_text ?? "—"}</td>
                  <td>{r.actions_count}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-expanded={open === r.id}
                      aria-label={`${open === r.id ? "Close" : "Open"} the report of ${r.report_date}`}
                      onClick={() => setOpen(open === r.id ? null : r.id)}
                    >
                      {open === r.id ? "Close" : "Open"}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <KeysetPager trail={trail} next={page.data?.next} />
      {open && <ReportView tenantId={tenantId} id={open} />}
    </section>
  );
}
