"use client";

import { useId } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { TableWrap } from "../_components/table-wrap";

/** One stacked series of a chart: the row field it reads, its legend name and colour. */
export interface Series {
  key: string;
  name: string;
  color: string;
}

/** Rows of a daily chart: `day` (`YYYY-MM-DD`) plus one number per series key. */
export type DayRow = { day: string } & Record<string, number | string>;

const shortDay = (day: string) => day.slice(5); // MM-DD
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/**
 * A titled, described bar chart of days (stacked series) for the usage page. Accessible three ways: the
 * figure is labelled by its title and description, the chart has an `aria-label` with the window's
 * totals, and a collapsible table holds every non-zero day for screen readers and exact figures.
 * `format` renders values (money in RUB, counts as they are).
 */
export function DailyChart({
  title,
  description,
  rows,
  series,
  format = (v) => String(v),
  emptyText,
}: {
  title: string;
  description: string;
  rows: DayRow[];
  series: Series[];
  format?: (v: number) => string;
  emptyText: string;
}) {
  const id = useId();
  const totals = series.map((s) => ({ ...s, total: rows.reduce((n, r) => n + Number(r[s.key] ?? 0), 0) }));
  const busyDays = rows.filter((r) => series.some((s) => Number(r[s.key] ?? 0) !== 0));
  const summary = `${title}, last ${rows.length} days: ${
    totals.map((t) => `${t.name} ${format(t.total)}`).join(", ") || "no series"
  }.`;
  return (
    <figure aria-labelledby={`${id}-t`} aria-describedby={`${id}-d`} style={{ margin: "0 0 28px" }}>
      <figcaption>
        <h2 id={`${id}-t`}>{title}</h2>
        <p id={`${id}-d`} className="hint">
          {description}
        </p>
      </figcaption>
      <div role="img" aria-label={summary} style={{ width: "100%", height: 240 }} data-chart={title}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={shortDay} minTickGap={16} fontSize={12} />
            <YAxis allowDecimals={false} width={48} fontSize={12} tickFormatter={(v: number) => compact.format(v)} />
            <Tooltip formatter={(v) => format(Number(v))} labelFormatter={(l) => String(l)} />
            <Legend itemSorter={(item) => series.findIndex((s) => s.key === item.dataKey)} />
            {series.map((s) => (
              <Bar key={s.key} dataKey={s.key} name={s.name} stackId="day" fill={s.color} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      {busyDays.length === 0 ? (
        <p className="hint">{emptyText}</p>
      ) : (
        <details>
          <summary>Table: {title}</summary>
          <TableWrap label={`Table: ${title}`}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  {series.map((s) => (
                    <th scope="col" key={s.key}>
                      {s.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {busyDays.map((r) => (
                  <tr key={r.day}>
                    <th scope="row">{r.day}</th>
                    {series.map((s) => (
                      <td key={s.key}>{format(Number(r[s.key] ?? 0))}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </details>
      )}
    </figure>
  );
}
