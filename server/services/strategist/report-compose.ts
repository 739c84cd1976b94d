import type { PeriodPair, StrategistFigures } from "@/server/lib/strategist/analyst-io";
import { change, rate } from "./analyst-texts";
import { proposeTopics } from "./offline-analyst";

/** A highlight (what goes well) or a concern (what goes badly), with the figure behind it. */
export type ReportFinding = {
  title: string;
  detail: string;
  /** What was measured, e.g. `leads_created_7d`, `dashboard_blocks`. */
  metric: string;
  value: number | string;
  /** The same measure in the period before, or null when it has none. */
  previous: number | string | null;
};

/** An action item (spec "Strategist resources"). */
export type ReportAction = {
  title: string;
  priority: "high" | "medium" | "low";
  rationale: string;
  /** What the action is about: a console/API path or `keyword:<slug>`. */
  target_ref: string;
  expected_effect: string;
  check_after_days: number;
  /** Where the figures behind it come from: `crm`, `conversations`, `content`, `strategist`, `dashboard`. */
  basis: string;
};

/** A report's contents as stored in strategist_reports (report-writer.ts). */
export interface ComposedReport {
  summaryText: string;
  highlights: ReportFinding[];
  concerns: ReportFinding[];
  actions: ReportAction[];
  evidence: {
    actions: { index: number; status: "supported"; basis: string; items: string[] }[];
    validation: { refs_valid: boolean; excerpts_valid: boolean; relevance_checked: boolean; limitations: string[] };
  };
  dataAsOf: Record<string, string>;
}

type Window = "week" | "month";
const SPAN: Record<Window, { days: number; now: string; before: string }> = {
  week: { days: 7, now: "the last 7 days", before: "the 7 days before" },
  month: { days: 30, now: "the last 30 days", before: "the 30 days before" },
};
const PRIORITY = { high: 0, medium: 1, low: 2 } as const;

/** "12 in the last 7 days vs 8 in the 7 days before (+50%)". */
const versus = (c: { current: number; previous: number }, w: Window) =>
  `${c.current} in ${SPAN[w].now} vs ${c.previous} in ${SPAN[w].before} (${change(c.current, c.previous, "en")})`;

/**
 * The strategist's regular report from the tenant's figures (issue 73 item 4; spec "Strategist resources"),
 * in English; pure and deterministic (same figures, same report). Both types compare the last 7 days with
 * the 7 before (leads created and won, conversations started, articles published); a `weekly` one adds the
 * 30-day comparisons and the top lead source, and keeps up to 5 actions where a `daily` one keeps 3.
 * Highlights are the measures that grew, concerns those that fell plus conversations waiting for an operator,
 * a funnel without a won lead and dashboard blocks without data; actions follow from them, most urgent
 * first, each with its evidence (the figures it rests on). `dataAsOf` = the figures' per-source dates and
 * `snapshot` = their `asOf`.
 */
export function composeReport(figures: StrategistFigures, type: "daily" | "weekly"): ComposedReport {
  const f = figures;
  const windows: Window[] = type === "weekly" ? ["week", "month"] : ["week"];
  const measures: [string, string, PeriodPair][] = [
    ["leads_created", "Leads", f.leads.created],
    ["leads_won", "Won leads", f.leads.won],
    ["conversations_started", "Conversations", f.conversations.started],
    ["articles_published", "Published articles", f.articles.published],
  ];
  const highlights: ReportFinding[] = [];
  const concerns: ReportFinding[] = [];
  for (const w of windows)
    for (const [metric, label, p] of measures) {
      const c = p[w];
      if (c.current === c.previous) continue;
      const item: ReportFinding = {
        title: `${label} ${c.current > c.previous ? "up" : "down"} (${SPAN[w].days} days)`,
        detail: `${label}: ${versus(c, w)}.`,
        metric: `${metric}_${SPAN[w].days}d`,
        value: c.current,
        previous: c.previous,
      };
      (c.current > c.previous ? highlights : concerns).push(item);
    }
  const top = [...f.leads.bySource].sort(
    (a, b) => b.created.week.current - a.created.week.current || b.total - a.total,
  )[0];
  if (type === "weekly" && top && top.created.week.current > 0)
    highlights.push({
      title: `Top lead source: ${top.source}`,
      detail: `${top.source} brought ${versus(top.created.week, "week")}; ${top.total} leads in all, ${top.won} won.`,
      metric: "leads_top_source_7d",
      value: top.created.week.current,
      previous: top.created.week.previous,
    });
  const waiting = f.conversations.byStatus.handoff_pending ?? 0;
  if (waiting > 0)
    concerns.push({
      title: "Conversations wait for an operator",
      detail: `${waiting} of ${f.conversations.total} conversations wait for an operator.`,
      metric: "conversations_handoff_pending",
      value: waiting,
      previous: null,
    });
  const { sessions, leads, won } = f.funnel;
  if (leads > 0 && won === 0)
    concerns.push({
      title: "No won leads in 30 days",
      detail: `${leads} leads came in the last 30 days and none was won${sessions !== null ? ` (${sessions} sessions → ${leads} leads, ${rate(leads, sessions)})` : ""}.`,
      metric: "funnel_leads_to_won_30d",
      value: 0,
      previous: null,
    });
  const dark = f.dashboard.filter((b) => b.availability !== "ok");
  if (dark.length)
    concerns.push({
      title: "Dashboard blocks without data",
      detail: `${dark.length} dashboard block(s) have no data: ${dark.map((b) => `${b.block} (${b.availability.replace("_", " ")})`).join(", ")}.`,
      metric: "dashboard_blocks_without_data",
      value: dark.length,
      previous: null,
    });

  // Actions, each with the figures it rests on (its evidence items).
  const actions: (ReportAction & { items: string[] })[] = [];
  const fell = f.leads.created.week;
  if (fell.current < fell.previous) {
    const worst = [...f.leads.bySource].sort(
      (a, b) =>
        b.created.week.previous - b.created.week.current - (a.created.week.previous - a.created.week.current) ||
        a.source.localeCompare(b.source),
    )[0]!;
    actions.push({
      title: `Review the lead source "${worst.source}"`,
      priority: "high",
      rationale: `Leads fell: ${versus(fell, "week")}; ${worst.source} brought ${versus(worst.created.week, "week")}.`,
      target_ref: `/leads?source=${encodeURIComponent(worst.source)}`,
      expected_effect: `Lead intake back to ${fell.previous} a week`,
      check_after_days: 7,
      basis: "crm",
      items: [
        `leads_created_7d: ${fell.current} (previous ${fell.previous})`,
        `${worst.source}: ${worst.created.week.current} (previous ${worst.created.week.previous})`,
      ],
    });
  }
  if (waiting > 0)
    actions.push({
      title: `Answer the ${waiting} conversation(s) waiting for an operator`,
      priority: "high",
      rationale: `${waiting} of ${f.conversations.total} conversations wait for an operator; ${f.conversations.withLead} conversations produced a lead so far.`,
      target_ref: "/conversations?status=handoff_pending",
      expected_effect: "No customer left waiting; fewer lost leads",
      check_after_days: 1,
      basis: "conversations",
      items: [`conversations_handoff_pending: ${waiting}`],
    });
  if (leads > 0 && won === 0)
    actions.push({
      title: `Follow up the ${leads} lead(s) of the last 30 days`,
      priority: "high",
      rationale: `${leads} leads came in the last 30 days and none was won.`,
      target_ref: "/leads?status=new",
      expected_effect: "The first won lead of the period",
      check_after_days: 7,
      basis: "crm",
      items: [`funnel_30d: ${leads} leads → ${won} won`],
    });
  const proposed = f.topics.filter((t) => t.status === "proposed").length;
  if (proposed > 0)
    actions.push({
      title: `Decide on ${proposed} proposed topic(s)`,
      priority: "medium",
      rationale: `${proposed} topic(s) await approval or rejection.`,
      target_ref: "/strategist/topics?status=proposed",
      expected_effect: "Approved topics ready for articles",
      check_after_days: 7,
      basis: "strategist",
      items: [`topics_proposed: ${proposed}`],
    });
  const idea = proposeTopics(f, f.language === "ru" ? "ru" : "en", 1)[0];
  if (idea)
    actions.push({
      title: `Write an article: ${idea.title}`,
      priority: "medium",
      rationale: idea.rationale,
      target_ref: `keyword:${idea.clusterId ?? ""}`,
      expected_effect: "A new page for searches of this subject",
      check_after_days: 14,
      basis: "content",
      items: [`articles_published_7d: ${f.articles.published.week.current}`, `keywords: ${f.keywords.length}`],
    });
  if (dark.length)
    actions.push({
      title: "Connect the dashboard's missing data sources",
      priority: "low",
      rationale: `${dark.length} dashboard block(s) have no data: ${dark.map((b) => b.block).join(", ")}.`,
      target_ref: "/dashboards/overview",
      expected_effect: "Reports that can measure traffic and the whole funnel",
      check_after_days: 14,
      basis: "dashboard",
      items: dark.map((b) => `${b.block}: ${b.availability}`),
    });
  const kept = actions
    .map((a, i) => ({ a, i }))
    .sort((x, y) => PRIORITY[x.a.priority] - PRIORITY[y.a.priority] || x.i - y.i)
    .slice(0, type === "weekly" ? 5 : 3)
    .map((x) => x.a);

  const limitations: string[] = [];
  if (sessions === null) limitations.push("No sessions figure: the funnel starts at leads.");
  if (f.articles.traffic === null) limitations.push("No page traffic: the popular pages block has no data.");
  if (dark.length) limitations.push(`Blocks without data: ${dark.map((b) => b.block).join(", ")}.`);

  const w = f.leads.created.week;
  const summaryText =
    `${type === "weekly" ? "Weekly" : "Daily"} report, ${f.asOf}: ${w.current} leads in the last 7 days ` +
    `(${change(w.current, w.previous, "en")} on the 7 days before), ${f.leads.won.week.current} won, ` +
    `${f.conversations.started.week.current} conversations started, ${f.articles.published.week.current} article(s) published. ` +
    `${highlights.length} highlight(s), ${concerns.length} concern(s), ${kept.length} action(s).`;

  return {
    summaryText,
    highlights,
    concerns,
    actions: kept.map(({ items: _items, ...a }) => a),
    evidence: {
      actions: kept.map((a, index) => ({ index, status: "supported" as const, basis: a.basis, items: a.items })),
      validation: { refs_valid: true, excerpts_valid: true, relevance_checked: true, limitations },
    },
    dataAsOf: { ...f.dataAsOf, snapshot: f.asOf },
  };
}
