"use client";

import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { DailyChart, type DayRow, type Series } from "./usage-chart";

const STATUS_SERIES: Series[] = [
  { key: "2xx", name: "2xx", color: "#1a7f37" },
  { key: "3xx", name: "3xx", color: "#6e7781" },
  { key: "4xx", name: "4xx", color: "#bf8700" },
  { key: "5xx", name: "5xx", color: "#cf222e" },
];
const DELIVERY_SERIES: Series[] = [
  { key: "delivered", name: "Delivered", color: "#1a7f37" },
  { key: "failed", name: "Failed, retrying", color: "#bf8700" },
  { key: "dead", name: "Dead", color: "#cf222e" },
];
/** Distinct colours for integrations, in turn (colour-blind friendly palette of Okabe and Ito). */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

const rub = new Intl.NumberFormat("ru-RU", { style: "currency", currency: "RUB" });

/**
 * Usage of the last 30 days (issue 19 item 6): API requests a day by status class and by integration,
 * money spent a day (RUB) and webhook deliveries a day by state, as Recharts bar charts with tables.
 */
export function UsagePanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.usage.summary.queryOptions({ tenantId }));
  const u = usage.data;
  const integrationSeries: Series[] = (u?.integrations ?? []).map((i, n) => ({
    key: i.id,
    name: i.name,
    color: PALETTE[n % PALETTE.length],
  }));
  return (
    <>
      <h1>Usage</h1>
      <p className="hint">
        The last 30 days by UTC day. Requests come from the API request log; spend is what paid operations charged and
        operators debited from the wallet.
      </p>
      <QueryState isLoading={usage.isLoading} error={usage.error}>
        {u && (
          <>
            <DailyChart
              title="API requests by status"
              description="Requests a day with a key of this tenant, by status class of the answer."
              rows={u.requests.map(({ byIntegration: _, ...r }) => r as DayRow)}
              series={STATUS_SERIES}
              emptyText="No API requests in the last 30 days."
            />
            <DailyChart
              title="API requests by integration"
              description="Requests a day, by the integration whose key made them."
              rows={u.requests.map((r) => ({ day: r.day, ...r.byIntegration }) as DayRow)}
              series={integrationSeries}
              emptyText="No API requests in the last 30 days."
            />
            <DailyChart
              title="Spend"
              description="Money charged a day for paid operations and debited by operators, in rubles."
              rows={u.spend.map((s) => ({ day: s.day, spend: Number(s.minor) / 100 }))}
              series={[{ key: "spend", name: "Spend, RUB", color: "#0b57d0" }]}
              format={(v) => rub.format(v)}
              emptyText="Nothing was spent in the last 30 days."
            />
            <DailyChart
              title="Webhook deliveries"
              description="Deliveries created a day, by their state now: delivered, failed and waiting for a retry, or dead (no more retries)."
              rows={u.deliveries as DayRow[]}
              series={DELIVERY_SERIES}
              emptyText="No webhook deliveries in the last 30 days."
            />
          </>
        )}
      </QueryState>
    </>
  );
}
