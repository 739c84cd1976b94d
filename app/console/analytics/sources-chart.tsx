"use client";

import { useId } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { TableWrap } from "../_components/table-wrap";

/** One traffic source's totals, as `analytics.overview` answers them. */
type SourceRow = inferRouterOutputs<AppRouter>["analytics"]["overview"]["sources"][number];

const SERIES = [
  { key: "sessions", name: "Sessions", color: "#0072B2" },
  { key: "visitors", name: "Visitors", color: "#56B4E9" },
  { key: "leads", name: "Leads", color: "#009E73" },
] as const;

/** Spec TrafficSourceRow `kind` as a reader says it. */
const KIND: Record<string, string> = {
  search: "Search",
  ai_assistant: "AI assistant",
  social: "Social",
  ads: "Ads",
  direct: "Direct",
  other: "Other",
};

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/**
 * "Traffic sources" of the Analytics page: sessions, visitors and leads of the last 30 days per source
 * (more sessions first), as grouped bars and as a table. The chart is labelled by a summary of its top
 * sources; the table carries every figure.
 */
export function SourcesChart({ sources }: { sources: SourceRow[] }) {
  const id = useId();
  const summary = `Traffic sources, last 30 days: ${
    sources
      .slice(0, 5)
      .map((s) => `${s.source} ${s.sessions} sessions`)
      .join(", ") || "none"
  }.`;
  return (
    <figure aria-labelledby={`${id}-t`} aria-describedby={`${id}-d`} style={{ margin: "0 0 28px" }}>
      <figcaption>
        <h2 id={`${id}-t`}>Traffic sources</h2>
        <p id={`${id}-d`} className="hint">
          Where sessions came from (utm tags first, else the referrer), with their visitors and the leads they brought,
          over the last 30 days.
        </p>
      </figcaption>
      {sources.length === 0 ? (
        <p className="hint">No traffic in the last 30 days.</p>
      ) : (
        <>
          {/* Horizontal bars: source names stay readable on a phone, one band of bars a source. */}
          <div
            role="img"
            aria-label={summary}
            style={{ width: "100%", height: 60 + sources.length * 44 }}
            data-chart="Traffic sources"
          >
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={sources} layout="vertical" margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" horizontal={false} />
                <XAxis
                  type="number"
                  allowDecimals={false}
                  fontSize={12}
                  tickFormatter={(v: number) => compact.format(v)}
                />
                <YAxis type="category" dataKey="source" width={84} interval={0} fontSize={12} />
                <Tooltip />
                <Legend itemSorter={(item) => SERIES.findIndex((s) => s.key === item.dataKey)} />
                {SERIES.map((s) => (
                  <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
          <TableWrap label="Table: Traffic sources">
            <table data-testid="traffic-sources">
              <thead>
                <tr>
                  <th scope="col">Source</th>
                  <th scope="col">Kind</th>
                  {SERIES.map((s) => (
                    <th scope="col" key={s.key}>
                      {s.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {sources.map((s) => (
                  <tr key={s.source}>
                    <th scope="row">{s.source}</th>
                    <td>{KIND[s.kind] ?? s.kind}</td>
                    <td>{s.sessions}</td>
                    <td>{s.visitors}</td>
                    <td>{s.leads}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </figure>
  );
}
