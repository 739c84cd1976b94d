"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { DailyChart } from "../usage/usage-chart";
import { LiveEvents } from "./live-events";
import { SourcesChart } from "./sources-chart";

const rub = new Intl.NumberFormat("ru-RU", { style: "currency", currency: "RUB" });

/** Where the page sends a tenant whose site sends nothing yet. */
export const INTAKE_DOCS = "/docs/event-intake";

/**
 * The Analytics page (issue 74 item 7): a note when the tenant lacks the preview `event-intake`; daily
 * charts of sessions, leads and revenue and the traffic sources of the last 30 days (daily rollups); the
 * live list of received events. Empty states point to the intake guide.
 */
export function AnalyticsPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.analytics.overview.queryOptions({ tenantId }));
  const o = overview.data;
  const empty = o !== undefined && o.sources.length === 0;
  return (
    <>
      <h1>Analytics</h1>
      <p className="hint">
        The last 30 days by UTC day, from what your site and CRM send to <code>POST /intake/events</code>. Figures come
        from daily rollups, updated within seconds of an event&apos;s arrival.
      </p>
      <QueryState isLoading={overview.isLoading} error={overview.error}>
        {o && (
          <>
            {!o.intakePreview && (
              <p className="notice" data-testid="intake-preview-note">
                This tenant has not got the preview <code>event-intake</code> yet: until it has, the API&apos;s intake
                and analytics routes answer 404. Ask the platform&apos;s operators to switch it on.
              </p>
            )}
            {empty && (
              <p className="empty" data-testid="analytics-empty">
                Nothing received in the last 30 days. Send page views, form submissions and purchases as the{" "}
                <Link href={INTAKE_DOCS}>event intake guide</Link> shows; they appear here within seconds.
              </p>
            )}
            <DailyChart
              title="Sessions"
              description="Visits a day: page views that started a session (arrived from another site, or directly)."
              rows={o.days.map((d) => ({ day: d.day, sessions: d.sessions }))}
              series={[{ key: "sessions", name: "Sessions", color: "#0072B2" }]}
              emptyText="No sessions in the last 30 days."
            />
            <DailyChart
              title="Leads"
              description="Leads a day: form submissions and sign-ups that created a lead."
              rows={o.days.map((d) => ({ day: d.day, leads: d.leads }))}
              series={[{ key: "leads", name: "Leads", color: "#009E73" }]}
              emptyText="No leads in the last 30 days."
            />
            <DailyChart
              title="Revenue"
              description={`Value of purchases and conversions a day, in rubles (${rub.format(
                Number(o.totals.revenueRub),
              )} in 30 days).`}
              rows={o.days.map((d) => ({ day: d.day, revenue: Number(d.revenueRub) }))}
              series={[{ key: "revenue", name: "Revenue, RUB", color: "#E69F00" }]}
              format={(v) => rub.format(v)}
              emptyText="No revenue in the last 30 days."
            />
            <SourcesChart sources={o.sources} />
          </>
        )}
      </QueryState>
      <LiveEvents tenantId={tenantId} />
    </>
  );
}
