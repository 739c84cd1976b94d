import type { Db } from "@/db/client";
import { CELL_CURRENCY, formatMinor } from "@/server/lib/money";
import { SEARCH_ENGINES, type FunnelResponse, type FunnelStep } from "@/server/schemas/analytics";
import type { IntegrationActor } from "../actor";
import type { Owner } from "../tenant-scope";
import { dataThrough, intakeStatus, type IntakeStatus } from "./data-as-of";
import { dailySeries, sourceTotals } from "./daily-series";
import { analyticsPeriod, addDays, daysIn } from "./period";
import { deltaPct, wireValue } from "./timeseries";
import { namedSourceTotals } from "./traffic-sources";

/** The funnel's steps that intake feeds, with the rollup metric of each. */
const FED_STEPS = ["sessions", "leads", "deals_won", "revenue"] as const;

/** Steps intake cannot feed, and why (they are `no_source`). */
const UNFED_STEPS: Record<"impressions" | "clicks" | "deals_created", string> = {
  impressions: "no search console connected",
  clicks: "no search console connected",
  deals_created: "intake creates leads and wins deals; when a deal is opened is known only to a connected CRM",
};

/**
 * The funnel's steps (spec FunnelStep) in the spec's order, impressions → clicks → sessions → leads →
 * deals_created → deals_won → revenue, over `from`–`to` against the period of the same length before it,
 * from the daily rollups (one grouped query over both periods). Counts are numbers, `revenue` a decimal
 * string in `currency`. Shared by `GET /analytics/funnel` and the dashboard's `funnel` block.
 */
export async function funnelSteps(
  db: Db,
  owner: Owner,
  from: string,
  to: string,
  status: IntakeStatus,
  currency: string,
): Promise<FunnelStep[]> {
  const prevFrom = addDays(from, -daysIn(from, to));
  const series = await dailySeries(db, owner, FED_STEPS, prevFrom, to);
  const sum = (key: (typeof FED_STEPS)[number], inCurrent: boolean) =>
    series[key].filter((d) => d.date >= from === inCurrent).reduce((n, d) => n + d.value, 0);
  const unfed = (key: keyof typeof UNFED_STEPS): FunnelStep => ({
    key,
    availability: "no_source",
    reason: UNFED_STEPS[key],
    sources: [],
    unit: "count",
    current: null,
    prev: null,
    delta_pct: null,
    data_through: null,
    currency: null,
  });
  const fed = (key: (typeof FED_STEPS)[number]): FunnelStep => {
    const money = key === "revenue";
    const current = sum(key, true);
    const prev = sum(key, false);
    return {
      key,
      availability: status.inPeriod ? "ok" : "no_data",
      reason: status.inPeriod ? null : "no events were received for this period",
      sources: ["intake"],
      unit: money ? "money" : "count",
      current: wireValue(current, money),
      prev: wireValue(prev, money),
      delta_pct: deltaPct(current, prev),
      data_through: dataThrough(status, to),
      currency: money ? currency : null,
    };
  };
  return [
    unfed("impressions"),
    unfed("clicks"),
    fed("sessions"),
    fed("leads"),
    unfed("deals_created"),
    fed("deals_won"),
    fed("revenue"),
  ];
}

/**
 * `GET /analytics/funnel` (issue 74 item 3; spec FunnelResponse): the actor's funnel over the period (default
 * the 30 days ending yesterday) from the daily rollups, for both search engines (`engine` `both`: intake
 * tells search visits by engine from their referrer). `by_channel`: totals by traffic kind, more sessions
 * first; `search_by_engine`: google, yandex and bing; `by_product`: empty (intake events name no product);
 * `crm`: `ok` when the period has leads or deals won, else `no_data`. Plus `data_as_of`.
 * @throws ApiError 422 on `/from` (after `to`, or a period over 366 days)
 */
export async function funnel(
  db: Db,
  actor: IntegrationActor,
  q: { from?: string; to?: string },
): Promise<FunnelResponse> {
  const p = analyticsPeriod(q);
  const currency = CELL_CURRENCY[actor.cell];
  const [status, totals] = await Promise.all([
    intakeStatus(db, actor, p.from, p.to),
    sourceTotals(db, actor, p.from, p.to),
  ]);
  const steps = await funnelSteps(db, actor, p.from, p.to, status, currency);
  const rows = namedSourceTotals(totals);
  const byKind = new Map<string, { sessions: number; leads: number; deals_won: number; revenue: number }>();
  for (const r of rows) {
    const k = byKind.get(r.kind) ?? { sessions: 0, leads: 0, deals_won: 0, revenue: 0 };
    byKind.set(r.kind, {
      sessions: k.sessions + r.sessions,
      leads: k.leads + r.leads,
      deals_won: k.deals_won + r.dealsWon,
      revenue: k.revenue + r.revenueMinor,
    });
  }
  const money = (minor: number) => formatMinor(BigInt(Math.round(minor)));
  const leadsOrDeals = rows.some((r) => r.leads > 0 || r.dealsWon > 0);
  return {
    data: {
      engine: "both",
      from: p.from,
      to: p.to,
      steps,
      by_channel: [...byKind]
        .map(([kind, t]) => ({
          kind: kind as FunnelResponse["data"]["by_channel"][number]["kind"],
          ...t,
          revenue: money(t.revenue),
        }))
        .sort((a, b) => b.sessions - a.sessions || a.kind.localeCompare(b.kind)),
      search_by_engine: SEARCH_ENGINES.map((engine) => {
        const r = rows.find((x) => x.source === engine);
        return {
          engine,
          sessions: r?.sessions ?? 0,
          leads: r?.leads ?? 0,
          deals_won: r?.dealsWon ?? 0,
          revenue: money(r?.revenueMinor ?? 0),
        };
      }),
      by_product: [],
      crm: leadsOrDeals
        ? { availability: "ok", reason: null }
        : { availability: "no_data", reason: "no leads or deals were recorded from intake events in this period" },
      currency,
    },
    data_as_of: status.dataAsOf,
  };
}
