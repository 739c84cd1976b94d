import { z } from "zod";
import * as actions from "@/server/services/strategist/actions";
import * as reports from "@/server/services/strategist/reports";
import * as topics from "@/server/services/strategist/topics";
import { invalidField } from "@/server/errors";
import {
  boolParam,
  cursorParam,
  includeDeletedNotStored,
  limitParam,
  pageOf,
  UuidParam,
} from "@/server/schemas/common";
import {
  ActionStatus,
  ReportType,
  StrategistActionSchema,
  StrategistReportSchema,
  StrategistReportSummarySchema,
  StrategistTopicSchema,
  TopicStatus,
} from "@/server/schemas/strategist";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok, page } from "../define-route";
import { InstantIdPosition, TopicListPosition } from "../positions";

const ReportListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  report_type: ReportType.optional(),
  include_deleted: includeDeletedNotStored("deleted reports are not stored"),
});

/** `GET /strategist/reports`: summaries newest first; creative runs never appear; `report_type` daily|weekly. */
export const listStrategistReportsRoute = defineRoute({
  operationId: "listStrategistReports",
  summary: "List strategist reports",
  method: "GET",
  path: "/strategist/reports",
  scope: "strategist:read",
  rate: "read",
  query: ReportListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(StrategistReportSummarySchema) },
  handler: async ({ db, actor, query, after }) => {
    const p = await reports.listReports(db, actor, { limit: query.limit, reportType: query.report_type, after });
    return page(p.reports, p.next);
  },
});

/** `GET /strategist/reports/{id}`: competitor names masked; no snapshot, model or cost. */
export const getStrategistReportRoute = defineRoute({
  operationId: "getStrategistReport",
  summary: "Read a strategist report",
  method: "GET",
  path: "/strategist/reports/{id}",
  scope: "strategist:read",
  rate: "read",
  params: UuidParam,
  responses: { 200: StrategistReportSchema },
  handler: async ({ db, actor, params }) => ok(await reports.getReport(db, actor, params.id)),
});

const TopicListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  status: TopicStatus.optional(),
  include_deleted: boolParam.optional(),
});

/**
 * `GET /strategist/topics`: by trend score descending, not scored last; `status`; `include_deleted=true` is
 * 422 `not_supported` on `/include_deleted` because deleted topics are not stored (false is accepted).
 */
export const listStrategistTopicsRoute = defineRoute({
  operationId: "listStrategistTopics",
  summary: "List strategist topics",
  method: "GET",
  path: "/strategist/topics",
  scope: "strategist:read",
  rate: "read",
  query: TopicListQuery,
  list: { position: TopicListPosition },
  responses: { 200: pageOf(StrategistTopicSchema) },
  handler: async ({ db, actor, query, after }) => {
    if (query.include_deleted)
      throw invalidField(
        "/include_deleted",
        "not_supported",
        "deleted topics are not stored, so include_deleted=true is not supported",
      );
    const p = await topics.listTopics(db, actor, { limit: query.limit, status: query.status, after });
    return page(p.topics, p.next);
  },
});

/** `GET /strategist/topics/{id}`. */
export const getStrategistTopicRoute = defineRoute({
  operationId: "getStrategistTopic",
  summary: "Read a strategist topic",
  method: "GET",
  path: "/strategist/topics/{id}",
  scope: "strategist:read",
  rate: "read",
  params: UuidParam,
  responses: { 200: StrategistTopicSchema },
  handler: async ({ db, actor, params }) => ok(await topics.getTopic(db, actor, params.id)),
});

const ActionListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  status: ActionStatus.optional(),
  session_id: z.uuid({ message: "must be a uuid" }).optional(),
  include_deleted: includeDeletedNotStored("deleted actions are not stored"),
});

/** `GET /strategist/actions`: this integration's actions only, newest first; `status` (as read), `session_id`. */
export const listStrategistActionsRoute = defineRoute({
  operationId: "listStrategistActions",
  summary: "List strategist actions of this integration",
  method: "GET",
  path: "/strategist/actions",
  scope: "strategist:read",
  rate: "read",
  query: ActionListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(StrategistActionSchema) },
  handler: async ({ db, actor, query, after }) => {
    const p = await actions.listActions(db, actor, {
      limit: query.limit,
      status: query.status,
      sessionId: query.session_id,
      after,
    });
    return page(p.actions, p.next);
  },
});

/** `GET /strategist/actions/{id}`: another integration's or a staff action is 404. */
export const getStrategistActionRoute = defineRoute({
  operationId: "getStrategistAction",
  summary: "Read a strategist action",
  method: "GET",
  path: "/strategist/actions/{id}",
  scope: "strategist:read",
  rate: "read",
  params: UuidParam,
  responses: { 200: StrategistActionSchema },
  handler: async ({ db, actor, params }) => ok(await actions.getAction(db, actor, params.id)),
});

/** Routes of this domain, in the order of the spec. */
export const STRATEGIST_ROUTES: AnyRoute[] = [
  listStrategistReportsRoute,
  getStrategistReportRoute,
  listStrategistTopicsRoute,
  getStrategistTopicRoute,
  listStrategistActionsRoute,
  getStrategistActionRoute,
];
