import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistReports } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { StrategistReport, StrategistReportSummary } from "@/server/schemas/strategist";
import { ownedBy, type Owner } from "../tenant-scope";
import { competitorMasker, maskJson } from "./competitor-mask";

type ReportRow = typeof strategistReports.$inferSelect;

/** Keyset position of a report in the list order (newest first): [created_at ISO, id]. */
export type ReportPosition = [string, string];

// Creative runs are drafts of the strategist's own experiments; the spec never returns them.
const notCreative = ne(strategistReports.runKind, "creative");

function summaryOf(r: ReportRow): StrategistReportSummary {
  const mask = competitorMasker(r.competitorNames ?? []);
  return {
    id: r.id,
    report_date: r.reportDate,
    report_type: r.reportType as StrategistReportSummary["report_type"],
    summary_text: r.summaryText === null ? null : mask(r.summaryText),
    actions_count: r.actions.length,
    data_as_of: r.dataAsOf,
    delivered_at: r.deliveredAt?.toISOString() ?? null,
  };
}

/**
 * Row → StrategistReport (spec "Strategist resources"): every string of the texts, highlights, concerns,
 * actions and evidence has the row's competitor names replaced by "a competitor"; snapshot, model and
 * cost are left out on purpose.
 */
export function toReport(r: ReportRow): StrategistReport {
  const mask = competitorMasker(r.competitorNames ?? []);
  return {
    id: r.id,
    report_date: r.reportDate,
    report_type: r.reportType as StrategistReport["report_type"],
    summary_text: r.summaryText === null ? null : mask(r.summaryText),
    data_as_of: r.dataAsOf,
    highlights: maskJson(r.highlights, mask),
    concerns: maskJson(r.concerns, mask),
    actions: maskJson(r.actions, mask),
    evidence: maskJson(r.evidence, mask),
  };
}

/**
 * `GET /strategist/reports` and the console's Reports: a page of the summaries of the actor's tenant and mode (tenant-scope.ts), newest first (`created_at` DESC, `id` DESC), strictly
 * after `after`; creative runs never appear. Fetches `limit + 1` rows to know whether a next page exists.
 */
export async function listReports(
  db: Db,
  actor: Owner,
  q: { limit: number; reportType?: string; after?: ReportPosition },
): Promise<{ reports: StrategistReportSummary[]; next: ReportPosition | null }> {
  const conds = [ownedBy(strategistReports, actor), notCreative];
  if (q.reportType) conds.push(eq(strategistReports.reportType, q.reportType));
  if (q.after) {
    const [c, id] = q.after;
    conds.push(sql`(${strategistReports.createdAt}, ${strategistReports.id}) < (${c}::timestamptz, ${id}::uuid)`);
  }
  const rows = await db
    .select()
    .from(strategistReports)
    .where(and(...conds))
    .orderBy(desc(strategistReports.createdAt), desc(strategistReports.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    reports: page.map(summaryOf),
    next: rows.length > q.limit && last ? [last.createdAt.toISOString(), last.id] : null,
  };
}

/** `GET /strategist/reports/{id}`. @throws ApiError 404 `not_found` for a missing, foreign, other-mode or creative report. */
export async function getReport(db: Db, actor: Owner, id: string): Promise<StrategistReport> {
  const [row] = await db
    .select()
    .from(strategistReports)
    .where(and(ownedBy(strategistReports, actor), eq(strategistReports.id, id), notCreative));
  if (!row) throw notFound("Strategist report");
  return toReport(row);
}
