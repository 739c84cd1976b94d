import type { Db } from "@/db/client";
import {
  TRAFFIC_KINDS,
  TRAFFIC_SOURCES,
  type TrafficSourceRow,
  type TrafficSourcesResponse,
} from "@/server/schemas/analytics";
import type { IntegrationActor } from "../actor";
import { intakeStatus } from "./data-as-of";
import { sourceSessionSeries, sourceTotals, type SourceTotals } from "./daily-series";
import { analyticsPeriod } from "./period";

type Source = TrafficSourceRow["source"];
type Kind = TrafficSourceRow["kind"];

/** A rollup's source as the spec names it: one of TrafficSourceRow's `source` values, else `other`. */
export const sourceName = (s: string): Source =>
  (TRAFFIC_SOURCES as readonly string[]).includes(s) ? (s as Source) : "other";
/** A rollup's kind as the spec names it: one of TrafficSourceRow's `kind` values, else `other`. */
export const kindName = (k: string): Kind => ((TRAFFIC_KINDS as readonly string[]).includes(k) ? (k as Kind) : "other");

/**
 * Source totals with the spec's names (a source intake named otherwise is counted as `other`, merged), more
 * sessions first, then by source.
 */
export function namedSourceTotals(rows: SourceTotals[]): (SourceTotals & { source: Source; kind: Kind })[] {
  const merged = new Map<Source, SourceTotals & { source: Source; kind: Kind }>();
  for (const r of rows) {
    const source = sourceName(r.source);
    const m = merged.get(source);
    if (!m) merged.set(source, { ...r, source, kind: source === r.source ? kindName(r.kind) : "other" });
    else
      Object.assign(m, {
        sessions: m.sessions + r.sessions,
        visitors: m.visitors + r.visitors,
        leads: m.leads + r.leads,
        dealsWon: m.dealsWon + r.dealsWon,
        revenueMinor: m.revenueMinor + r.revenueMinor,
      });
  }
  return [...merged.values()].sort((a, b) => b.sessions - a.sessions || a.source.localeCompare(b.source));
}

/**
 * `GET /analytics/traffic-sources` (issue 74 item 3): the actor's traffic sources over the period (default the
 * 30 days ending yesterday) from the daily rollups: sessions, visitors (a visitor counts once a day, under
 * the source of their first visit that day) and leads, more sessions first; with `include=series` each
 * row's daily sessions. A source that only sent other events in the period (a purchase) is listed with its
 * zeros; a source without any event in the period is absent.
 * @throws ApiError 422 on `/from` (after `to`, or a period over 366 days)
 */
export async function trafficSources(
  db: Db,
  actor: IntegrationActor,
  q: { from?: string; to?: string; include?: "series" },
): Promise<TrafficSourcesResponse> {
  const p = analyticsPeriod(q);
  const [status, totals, series] = await Promise.all([
    intakeStatus(db, actor, p.from, p.to),
    sourceTotals(db, actor, p.from, p.to),
    q.include === "series" ? sourceSessionSeries(db, actor, p.from, p.to) : null,
  ]);
  const named = series ? seriesByName(series) : null;
  const data = namedSourceTotals(totals).map((r): TrafficSourceRow => {
    const row: TrafficSourceRow = {
      source: r.source,
      kind: r.kind,
      sessions: r.sessions,
      visitors: r.visitors,
      leads: r.leads,
    };
    if (named) row.series = named.get(r.source) ?? [];
    return row;
  });
  return { data, data_as_of: status.dataAsOf };
}

/** Series by the spec's source names (those counted as `other` added day by day). */
function seriesByName(series: Map<string, { date: string; value: number }[]>) {
  const out = new Map<Source, { date: string; value: number }[]>();
  for (const [source, points] of series) {
    const name = sourceName(source);
    const had = out.get(name);
    out.set(name, had ? had.map((p, i) => ({ date: p.date, value: p.value + points[i]!.value })) : points);
  }
  return out;
}
