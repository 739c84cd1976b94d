import type {
  StrategistAction,
  StrategistSession,
  StrategistTopic,
  StrategistTurnCreate,
  StrategistTurnResult,
} from "../types.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/**
 * Strategist decisions and chat (preview `strategist`: switched on per tenant; for other tenants every
 * method answers ApiError `not_found`). See docs/strategist.md.
 */
export function strategistChatResource(ctx: Context) {
  const write = (id: string, o?: WriteOptions) => ({
    params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
    signal: o?.signal,
  });
  return {
    /**
     * `POST /strategist/actions/{id}/confirm` (scope `strategist:write`): executes a proposed action; a
     * `propose_topic` answers `executed` with `result.topic_id` (or `failed` with `error`).
     * @throws ApiError `invalid_state` (not proposed: decided or expired), `not_found`
     */
    confirmAction: (id: string, o?: WriteOptions): Promise<StrategistAction> =>
      unwrap(ctx.raw.POST("/strategist/actions/{id}/confirm", write(id, o))),
    /** `POST /strategist/actions/{id}/cancel`. @throws ApiError `invalid_state`, `not_found` */
    cancelAction: (id: string, o?: WriteOptions): Promise<StrategistAction> =>
      unwrap(ctx.raw.POST("/strategist/actions/{id}/cancel", write(id, o))),
    /** `POST /strategist/topics/{id}/approve`: a proposed topic becomes `approved`. @throws ApiError `invalid_state` */
    approveTopic: (id: string, o?: WriteOptions): Promise<StrategistTopic> =>
      unwrap(ctx.raw.POST("/strategist/topics/{id}/approve", write(id, o))),
    /** `POST /strategist/topics/{id}/reject`: a proposed or approved topic becomes `rejected`. */
    rejectTopic: (id: string, o?: WriteOptions): Promise<StrategistTopic> =>
      unwrap(ctx.raw.POST("/strategist/topics/{id}/reject", write(id, o))),

    /** `POST /strategist/chat/sessions` (scope `strategist:chat`; free): a new, empty session. */
    createSession: (o?: WriteOptions): Promise<StrategistSession> =>
      unwrap(
        ctx.raw.POST("/strategist/chat/sessions", {
          params: { header: { "Idempotency-Key": keyOf(ctx, o) } },
          signal: o?.signal,
        }),
      ),
    /** `GET /strategist/chat/sessions/{id}`: the session with its turns, oldest first. */
    session: (id: string, o?: CallOptions): Promise<StrategistSession> =>
      unwrap(ctx.raw.GET("/strategist/chat/sessions/{id}", { params: { path: { id } }, signal: o?.signal })),
    /**
     * `POST /strategist/chat/sessions/{id}/turns` (scope `strategist:chat`; paid): asks the strategist.
     * Answers the turn and its operation (`strategist.turn`), finished when it finishes within `o.wait`
     * seconds (0-20), else still running: then `client.waitForOperation(operation.id)` and read the session.
     * A repeat with the same Idempotency-Key answers the same turn and charges nothing again.
     * @throws ApiError `invalid_state` (a turn of the session still runs; see `retryAfterSec`), `not_found`,
     *   `insufficient_funds`, `spend_limit_reached`, `rate_limited`, `validation_failed`
     */
    ask: (
      sessionId: string,
      body: StrategistTurnCreate,
      o?: WriteOptions & { wait?: number },
    ): Promise<StrategistTurnResult> =>
      unwrap(
        ctx.raw.POST("/strategist/chat/sessions/{id}/turns", {
          params: {
            path: { id: sessionId },
            header: { "Idempotency-Key": keyOf(ctx, o) },
            ...(o?.wait !== undefined ? { query: { wait: o.wait } } : {}),
          },
          body,
          signal: o?.signal,
        }),
      ),
  };
}
