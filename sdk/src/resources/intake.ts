import type { IntakeEvent, IntakeResponse } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/**
 * Event and conversion intake (preview `event-intake`: switched on per tenant; for other tenants the method
 * answers ApiError `not_found`). Send what happens on your site and in your CRM.
 */
export function intakeResource(ctx: Context) {
  return {
    /**
     * `POST /intake/events` (scope `analytics:write`; one write per batch): 1 to 100 events. Answers one result
     * per event in request order: `accepted`, `duplicate` (its `event_id` was accepted in the last 7 days, or
     * earlier in this batch) or `rejected` with `errors`; one bad event never refuses the batch, so check each
     * result. Sending a batch again is safe: what was accepted answers `duplicate`.
     * @throws ApiError `validation_failed` (not 1 to 100 events), `payload_too_large` (over 256 KB),
     *   `wallet_suspended`, `scope_missing`, `rate_limited`, `not_found` (no preview)
     */
    send: (events: IntakeEvent[], o?: CallOptions): Promise<IntakeResponse> =>
      unwrap(ctx.raw.POST("/intake/events", { body: { events }, signal: o?.signal })),
  };
}
