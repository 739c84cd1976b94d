import { Paginated } from "../paginate.js";
import type {
  StrategistAction,
  StrategistActionListQuery,
  StrategistReport,
  StrategistReportListQuery,
  StrategistReportSummary,
  StrategistTopic,
  StrategistTopicListQuery,
} from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/** Strategist reads (spec "Strategist reads"; scope `strategist:read`). */
export function strategistResource(ctx: Context) {
  return {
    reports: {
      /** `GET /strategist/reports`: summaries, newest first; every page. */
      list: (query: StrategistReportListQuery = {}, o?: CallOptions): Paginated<StrategistReportSummary> =>
        new Paginated(
          (cursor) =>
            unwrap(ctx.raw.GET("/strategist/reports", { params: { query: { ...query, cursor } }, signal: o?.signal })),
          query.cursor,
        ),
      /** `GET /strategist/reports/{id}`. @throws ApiError `not_found` */
      get: (id: string, o?: CallOptions): Promise<StrategistReport> =>
        unwrap(ctx.raw.GET("/strategist/reports/{id}", { params: { path: { id } }, signal: o?.signal })),
    },
    topics: {
      /** `GET /strategist/topics`: by trend score, highest first; every page. */
      list: (query: StrategistTopicListQuery = {}, o?: CallOptions): Paginated<StrategistTopic> =>
        new Paginated(
          (cursor) =>
            unwrap(ctx.raw.GET("/strategist/topics", { params: { query: { ...query, cursor } }, signal: o?.signal })),
          query.cursor,
        ),
      /** `GET /strategist/topics/{id}`. @throws ApiError `not_found` */
      get: (id: string, o?: CallOptions): Promise<StrategistTopic> =>
        unwrap(ctx.raw.GET("/strategist/topics/{id}", { params: { path: { id } }, signal: o?.signal })),
    },
    actions: {
      /** `GET /strategist/actions`: this integration's actions, newest first; every page. */
      list: (query: StrategistActionListQuery = {}, o?: CallOptions): Paginated<StrategistAction> =>
        new Paginated(
          (cursor) =>
            unwrap(ctx.raw.GET("/strategist/actions", { params: { query: { ...query, cursor } }, signal: o?.signal })),
          query.cursor,
        ),
      /** `GET /strategist/actions/{id}`. @throws ApiError `not_found` (also another integration's action) */
      get: (id: string, o?: CallOptions): Promise<StrategistAction> =>
        unwrap(ctx.raw.GET("/strategist/actions/{id}", { params: { path: { id } }, signal: o?.signal })),
    },
  };
}
