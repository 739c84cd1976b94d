/**
 * @platform/sdk: the TypeScript SDK of the Platform public API v1.
 *
 * - {@link createClient}: typed methods per route family, lists that page by themselves, Idempotency-Keys
 *   on every POST and PATCH, safe retries with backoff and `Retry-After`, `ApiError` with a typed `code`,
 *   `waitForOperation`.
 * - {@link verifyWebhook}: checks a delivery's `Service-Signature` (one or two secrets) and returns the
 *   typed event.
 *
 * Types are generated from the API's OpenAPI document; runs on Node 20+ (and any runtime with fetch and
 * WebCrypto).
 */
export { createClient, SDK_VERSION, type ClientOptions, type PlatformClient } from "./client.js";
export { ApiConnectionError, ApiError, isApiError, OperationTimeoutError, type ApiErrorCode } from "./errors.js";
export { Paginated, type Page } from "./paginate.js";
export type { CallOptions, RawClient, WriteOptions } from "./resources/context.js";
export type { ArticleUpdateOptions, TaggedArticle } from "./resources/articles-writes.js";
export { isFinished, type WaitOptions } from "./resources/operations.js";
export { createTransport, isRetrySafe, type RetryOptions, type TransportOptions } from "./transport.js";
export * from "./types.js";
export {
  DEFAULT_TOLERANCE_SEC,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type HeaderSource,
  type VerifyWebhookOptions,
  type WebhookVerificationReason,
} from "./webhook-signature.js";
export type { components, operations, paths, webhooks } from "./generated/openapi.js";
