import type { Db } from "@/db/client";
import { CELL_CURRENCY, money } from "@/server/lib/money";
import type { DashboardBlock } from "@/server/schemas/dashboards";
import type { IntegrationActor } from "../actor";
import { intakeStatus } from "./data-as-of";
import { dailySeries, pageTotals } from "./daily-series";
import { funnelSteps } from "./funnel";
import { addDays, daysIn } from "./period";
import { deltaPct } from "./timeseries";

/** The overview's blocks that come from intake's rollups for tenants with the `event-intake` preview. */
export const INTAKE_BLOCKS = ["kpi", "funnel", "popular_pages"] as const;
export type IntakeBlockName = (typeof INTAKE_BLOCKS)[number];

const KPI_METRICS = ["sessions", "visitors", "pageviews", "leads", "deals_won", "revenue"] as const;

/**
 * The dashboard's `kpi`, `funnel` and `popular_pages` blocks (those of `names`) of the actor's tenant and mode
 * over `from`–`to` (the overview's period), from intake's daily rollups (issue 74 item 3), each with
 * `data_as_of` `{intake}`. `no_data` with a reason when the tenant (in this mode) has no rollup rows.
 * Payloads (the spec shows none): `kpi` the period's totals as top-level numbers (`revenue` as Money), with
 * `previous` (the period of the same length before) and `delta_pct`; `funnel` its `sessions` and the funnel's
 * `steps` as `GET /analytics/funnel` answers them; `popular_pages` `pages` [{path, title, pageviews}], the ten
 * most viewed.
 */
export async function intakeBlocks(
  db: Db,
  actor: IntegrationActor,
  names: readonly IntakeBlockName[],
  from: string,
  to: string,
): Promise<Partial<Record<IntakeBlockName, DashboardBlock>>> {
  const out: Partial<Record<IntakeBlockName, DashboardBlock>> = {};
  if (names.length === 0) return out;
  const status = await intakeStatus(db, actor, from, to);
  if (!status.any) {
    for (const n of names)
      out[n] = { availability: "no_data", reason: "no events were received yet (POST /intake/events)", data_as_of: {} };
    return out;
  }
  const block = (payload: Record<string, unknown>): DashboardBlock => ({
    ...payload,
    availability: "ok",
    data_as_of: status.dataAsOf,
  });
  const currency = CELL_CURRENCY[actor.cell];
  if (names.includes("kpi")) {
    const prevFrom = addDays(from, -daysIn(from, to));
    const s = await dailySeries(db, actor, KPI_METRICS, prevFrom, to);
    const total = (m: (typeof KPI_METRICS)[number], current: boolean) =>
      s[m].filter((d) => d.date >= from === current).reduce((n, d) => n + d.value, 0);
    const figures = (current: boolean) =>
      Object.fromEntries(
        KPI_METRICS.map((m) => [m, m === "revenue" ? money(BigInt(total(m, current)), currency) : total(m, current)]),
      );
    out.kpi = block({
      ...figures(true),
      previous: figures(false),
      delta_pct: Object.fromEntries(KPI_METRICS.map((m) => [m, deltaPct(total(m, true), total(m, false))])),
    });
  }
  if (names.includes("funnel")) {
    const steps = await funnelSteps(db, actor, from, to, status, currency);
    out.funnel = block({ sessions: steps.find((x) => x.key === "sessions")?.current ?? 0, steps });
  }
  if (names.includes("popular_pages")) out.popular_pages = block({ pages: await pageTotals(db, actor, from, to, 10) });
  return out;
}
