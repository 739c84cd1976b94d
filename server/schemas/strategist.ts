import { z } from "zod";
import { Timestamp } from "./common";

/** Report types of the strategist (spec "Strategist resources"). */
export const REPORT_TYPES = ["daily", "weekly"] as const;
export const ReportType = z.enum(REPORT_TYPES, { message: "must be daily or weekly" });

/** Topic statuses (spec "Strategist resources": StrategistTopic). */
export const TOPIC_STATUSES = [
  "proposed",
  "approved",
  "generating",
  "generated",
  "rejected",
  "duplicate",
  "expired",
] as const;
/** Topic statuses that count as open: a new topic with an open topic's title is `duplicate` (issue 73 item 1). */
export const OPEN_TOPIC_STATUSES = ["proposed", "approved", "generating"] as const;
export const TopicStatus = z.enum(TOPIC_STATUSES, { message: `must be one of ${TOPIC_STATUSES.join(", ")}` });

/** Action statuses (spec "Strategist resources": StrategistAction). */
export const ACTION_STATUSES = ["proposed", "confirmed", "executed", "failed", "cancelled", "expired"] as const;
export const ActionStatus = z.enum(ACTION_STATUSES, { message: `must be one of ${ACTION_STATUSES.join(", ")}` });

/** A calendar date YYYY-MM-DD. */
const DateText = z.iso.date();

/** Indicator → date YYYY-MM-DD of its latest data; key `snapshot` is the analytics snapshot date. */
const DataAsOf = z.record(z.string(), z.string());

/** An item whose structure the spec does not show (highlights, concerns, evidence parts). */
const OpenObject = z.record(z.string(), z.unknown());

/** StrategistReportSummary (spec "Strategist resources"): one line of `GET /strategist/reports`. */
export const StrategistReportSummarySchema = z.object({
  id: z.string(),
  report_date: DateText,
  report_type: ReportType,
  summary_text: z.string().nullable(),
  actions_count: z.number().int().min(0),
  data_as_of: DataAsOf,
  delivered_at: Timestamp.nullable(),
});
export type StrategistReportSummary = z.infer<typeof StrategistReportSummarySchema>;

/**
 * StrategistReport (spec "Strategist resources"): competitor names masked as "a competitor"; the analytics
 * snapshot, model and cost are never part of it. Action items carry `title, priority, rationale, target_ref,
 * expected_effect, check_after_days, basis`; evidence carries `actions` and `validation`.
 */
export const StrategistReportSchema = z.object({
  id: z.string(),
  report_date: DateText,
  report_type: ReportType,
  summary_text: z.string().nullable(),
  data_as_of: DataAsOf,
  highlights: z.array(OpenObject),
  concerns: z.array(OpenObject),
  actions: z.array(OpenObject),
  evidence: OpenObject,
});
export type StrategistReport = z.infer<typeof StrategistReportSchema>;

/** StrategistTopic (spec "Strategist resources"); `trend_score` null = not scored; competitor domains hidden. */
export const StrategistTopicSchema = z.object({
  id: z.string(),
  title: z.string().nullable(),
  rationale: z.string().nullable(),
  trend_score: z.number().nullable(),
  source: z.string(),
  status: TopicStatus,
  cluster_id: z.string().nullable(),
  generated_article_id: z.string().nullable(),
  proposed_at: Timestamp.nullable(),
  decided_at: Timestamp.nullable(),
  expires_at: Timestamp.nullable(),
});
export type StrategistTopic = z.infer<typeof StrategistTopicSchema>;

/** StrategistAction (spec "Strategist resources"); `expires_at` = creation + 7 days unless stored otherwise. */
export const StrategistActionSchema = z.object({
  id: z.string(),
  session_id: z.string().nullable(),
  type: z.string(),
  title: z.string().nullable(),
  status: ActionStatus,
  result: z.object({ topic_id: z.string() }).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  created_at: Timestamp,
  decided_at: Timestamp.nullable(),
  expires_at: Timestamp,
});
export type StrategistAction = z.infer<typeof StrategistActionSchema>;
