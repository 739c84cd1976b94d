"use client";

import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { humanKey, itemParts, plainText } from "./report-text";

/** A list of a report's highlights or concerns, each item as readable text. */
function Items({ title, items }: { title: string; items: Record<string, unknown>[] }) {
  return (
    <>
      <h4>{title}</h4>
      {items.length === 0 ? (
        <p className="hint">None.</p>
      ) : (
        <ul>
          {items.map((item, i) => {
            const p = itemParts(item);
            return (
              <li key={i}>
                {p.title && <strong>{p.title}</strong>}
                {p.title && p.text && ": "}
                {p.text}
                {p.rest.length > 0 && (
                  <span className="hint"> ({p.rest.map(([k, v]) => `${k}: ${v}`).join("; ")})</span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

/**
 * One report opened (issue 73 item 5): its summary, highlights, concerns, the actions it recommends (title,
 * priority, rationale, expected effect, when to check) and the date of each source's data, as text.
 */
export function ReportView({ tenantId, id }: { tenantId: string; id: string }) {
  const trpc = useTRPC();
  const report = useQuery(trpc.strategist.report.queryOptions({ tenantId, id }));
  const r = report.data;
  return (
    <QueryState isLoading={report.isLoading} error={report.error}>
      {r && (
        <article className="card" aria-label={`Report of ${r.report_date}`} data-testid="strategist-report">
          <h3>
            {r.report_type === "weekly" ? "Weekly" : "Daily"} report of {r.report_date}
          </h3>
          <p>{r.summary_text ?? "No summary."}</p>
          <Items title="Highlights" items={r.highlights} />
          <Items title="Concerns" items={r.concerns} />
          <h4>Recommended actions</h4>
          {r.actions.length === 0 ? (
            <p className="hint">None.</p>
          ) : (
            <ol>
              {r.actions.map((a, i) => (
                <li key={i}>
                  <strong>{plainText(a.title)}</strong>
                  {a.priority !== undefined && <span className="badge">{plainText(a.priority)} priority</span>}
                  {a.rationale !== undefined && <p style={{ margin: "2px 0" }}>{plainText(a.rationale)}</p>}
                  <p className="hint" style={{ margin: "2px 0" }}>
                    {a.expected_effect !== undefined && <>Expected effect: {plainText(a.expected_effect)}. </>}
                    {typeof a.check_after_days === "number" && <>Check after {a.check_after_days} days. </>}
                    {a.target_ref !== undefined && <>About: {plainText(a.target_ref)}. </>}
                  </p>
                </li>
              ))}
            </ol>
          )}
          <h4>Data as of</h4>
          {Object.keys(r.data_as_of).length === 0 ? (
            <p className="hint">No analytics snapshot yet.</p>
          ) : (
            <ul className="plain">
              {Object.entries(r.data_as_of).map(([k, d]) => (
                <li key={k}>
                  {humanKey(k)}: {d}
                </li>
              ))}
            </ul>
          )}
        </article>
      )}
    </QueryState>
  );
}
