/**
 * Events the Inngest functions react to.
 * - `webhooks/delivery.scheduled` `{deliveryId}`: a delivery row is due (sent after the transaction that
 *   queued it commits, and by the sweep for rows whose event was lost).
 * - `wallet/exchange.resumed` `{tenantId, livemode}`: a top-up or unblock lifted the suspension of the
 *   tenant's live wallet or (`livemode` false) its sandbox wallet; that mode's deferred deliveries go now.
 */
export const DELIVERY_SCHEDULED = "webhooks/delivery.scheduled";
export const EXCHANGE_RESUMED = "wallet/exchange.resumed";

/** Data of {@link DELIVERY_SCHEDULED}. */
export interface DeliveryScheduledData {
  deliveryId: string;
}

/** Data of {@link EXCHANGE_RESUMED}. */
export interface ExchangeResumedData {
  tenantId: string;
  /** The resumed wallet's mode: false for the sandbox wallet (issue 69); absent (events sent before it) = live. */
  livemode?: boolean;
}

/**
 * `operations/operation.queued` `{operationId}`: a live paid operation was queued (or found due by the
 * sweep); run by `run-operation`.
 */
export const OPERATION_QUEUED = "operations/operation.queued";

/**
 * `operations/test-operation.queued` `{operationId}`: the same for a test-mode operation (a test key's,
 * `livemode` false); run by `run-test-operation`, whose own concurrency limit keeps test work from taking
 * live work's capacity (issue 76 item 3).
 */
export const TEST_OPERATION_QUEUED = "operations/test-operation.queued";

/** Data of {@link OPERATION_QUEUED} and {@link TEST_OPERATION_QUEUED}. */
export interface OperationQueuedData {
  operationId: string;
}
