/**
 * Events the Inngest functions react to.
 * - `webhooks/delivery.scheduled` `{deliveryId}`: a delivery row is due (sent after the transaction that
 *   queued it commits, and by the sweep for rows whose event was lost).
 * - `wallet/exchange.resumed` `{tenantId}`: a top-up lifted the suspension; deferred deliveries go now.
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
}

/** `operations/operation.queued` `{operationId}`: a paid operation was queued (or found due by the sweep). */
export const OPERATION_QUEUED = "operations/operation.queued";

/** Data of {@link OPERATION_QUEUED}. */
export interface OperationQueuedData {
  operationId: string;
}
