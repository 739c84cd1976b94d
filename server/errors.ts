/**
 * The error catalog of the public API (spec "Errors: Catalog"): every code, its HTTP status and its
 * fixed title. REST answers it as problem+json, the console's tRPC maps it to a TRPCError code.
 */
export const ERROR_CATALOG = {
  invalid_api_key: { status: 401, title: "Invalid API key" },
  wrong_cell: { status: 401, title: "Wrong cell" },
  integration_inactive: { status: 401, title: "Integration inactive" },
  signature_invalid: { status: 401, title: "Signature invalid" },
  tenant_inactive: { status: 403, title: "Tenant inactive" },
  scope_missing: { status: 403, title: "Scope missing" },
  ip_not_allowed: { status: 403, title: "IP address not allowed" },
  feature_not_in_plan: { status: 403, title: "Feature not in plan" },
  pii_transfer_not_allowed: { status: 403, title: "Personal data transfer not allowed" },
  bad_request: { status: 400, title: "Bad request" },
  idempotency_key_required: { status: 400, title: "Idempotency key required" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  idempotency_conflict: { status: 409, title: "Idempotency conflict" },
  operation_in_progress: { status: 409, title: "Operation in progress" },
  invalid_state: { status: 409, title: "Invalid state" },
  editorial_profile_required: { status: 409, title: "Editorial profile required" },
  precondition_failed: { status: 412, title: "Precondition failed" },
  payload_too_large: { status: 413, title: "Payload too large" },
  validation_failed: { status: 422, title: "Validation failed" },
  precondition_required: { status: 428, title: "Precondition required" },
  insufficient_funds: { status: 402, title: "Insufficient funds" },
  spend_limit_reached: { status: 402, title: "Spend limit reached" },
  wallet_suspended: { status: 402, title: "Wallet suspended" },
  rate_limited: { status: 429, title: "Rate limited" },
  internal_error: { status: 500, title: "Internal error" },
  service_unavailable: { status: 503, title: "Service unavailable" },
  upstream_unavailable: { status: 503, title: "Upstream unavailable" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** One item of `errors[]` of a `validation_failed` problem: `field` is an RFC 6901 JSON Pointer. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** Extra members some codes carry (spec "Problem body"). */
export interface ProblemExtras {
  errors?: FieldError[];
  correct_base_url?: string;
  topup_url?: string;
  balance?: { amount: string; currency: string } | null;
  /** Only `precondition_failed` of `PATCH /leads/{id}`: the lead's current entity tag. */
  etag?: string;
}

/**
 * The one error type of the services and the pipeline. `detail` explains this case to a person and must
 * never hold secrets, SQL or stack traces. `headers` are added to the HTTP answer (e.g. `Retry-After`, `Allow`).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ProblemExtras;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}) {
    super(detail);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.extras = extras;
    this.headers = headers;
  }
}

/** Shorthand for a 422 with one field error. */
export function invalidField(field: string, code: string, message: string): ApiError {
  return new ApiError("validation_failed", message, { errors: [{ field, code, message }] });
}

/** Shorthand for the 404 that also answers for another tenant's resource (spec general fact 2). */
export function notFound(what: string): ApiError {
  return new ApiError("not_found", `${what} was not found.`);
}

/** What a code means and what the caller should do about it, for a person reading the errors page. */
export interface ErrorGuide {
  /** When the API answers with this code (spec "Errors: Catalog", column When). */
  when: string;
  /** What to do (column Action); empty where the spec gives no action. */
  action: string;
}

/**
 * The catalog's When and Action columns (spec "Errors: Catalog"), served at `/developers/errors`, the page
 * every problem `type` (`{cell_origin}/developers/errors#<code>`) points to. One entry per catalog code:
 * the type makes a missing or extra code a compile error.
 */
export const ERROR_GUIDE: { readonly [C in ErrorCode]: ErrorGuide } = {
  invalid_api_key: {
    when: "The Authorization header is missing, the key is not in this platform's format, or the key is unknown, revoked or expired.",
    action: "Check the key and its expiry (`key.expires_at` in `GET /me`). Do not retry automatically.",
  },
  wrong_cell: {
    when: "The key was issued in another cell.",
    action: "Send the request to `correct_base_url` from the problem body.",
  },
  integration_inactive: {
    when: "The key's integration is suspended or revoked, or its owner lost access.",
    action: "Check the integration in the console.",
  },
  signature_invalid: { when: "Reserved; not returned in v1.", action: "" },
  tenant_inactive: { when: "The tenant account is not active.", action: "Contact support." },
  scope_missing: {
    when: "The route needs a scope the key does not have, or the scope is cut by the integration's role, its owner's rights or the plan.",
    action: "Check `key.scopes` in `GET /me` and the integration's scopes in the console.",
  },
  ip_not_allowed: {
    when: "The caller's address is outside the key's or the integration's IP allowlist.",
    action: "Call from an allowed address or extend the allowlist.",
  },
  feature_not_in_plan: {
    when: "The plan lacks API access or the feature the route belongs to.",
    action: "Change the plan.",
  },
  pii_transfer_not_allowed: {
    when: "RU cell: a personal-data scope or `include_pii` while the allowlist or the recipient country does not allow the transfer.",
    action:
      "Host the receiver in the Russian Federation, set a narrow allowlist and recipient country RU on the integration, or avoid personal-data scopes.",
  },
  bad_request: {
    when: "The body is not JSON, the Content-Type is wrong, or a header is malformed.",
    action: "Fix the request.",
  },
  idempotency_key_required: { when: "The route requires an `Idempotency-Key` header.", action: "Add one (a UUID)." },
  not_found: {
    when: "The resource or route does not exist, or belongs to another tenant.",
    action: "Check the id and the path.",
  },
  method_not_allowed: {
    when: "The method is not supported at this address; the `Allow` header lists the ones that are.",
    action: "",
  },
  idempotency_conflict: {
    when: "The same `Idempotency-Key` was used with a different request.",
    action: "Use a new key, or repeat the original request exactly.",
  },
  operation_in_progress: {
    when: "A repeat of a request that is still running.",
    action: "Wait `Retry-After` seconds and repeat, or poll the operation.",
  },
  invalid_state: {
    when: "The action is not allowed in the resource's state (for example an 11th subscription, or a test of a paused one).",
    action: "Re-read the resource.",
  },
  editorial_profile_required: {
    when: "Generation needs the tenant's editorial profile.",
    action: "Fill in the editorial profile.",
  },
  precondition_failed: {
    when: "`If-Match` differs from the current version (the rules text also calls this `version_conflict`).",
    action: "Re-read the resource and apply the change again.",
  },
  payload_too_large: { when: "The request body is over 256 KB.", action: "Send less." },
  validation_failed: {
    when: "Parameters or body fields are invalid; `errors[]` names each one with a JSON Pointer.",
    action: "Fix the fields listed in `errors[]`.",
  },
  precondition_required: { when: "A change was sent without `If-Match`.", action: "Send the version you read." },
  insufficient_funds: { when: "The wallet lacks money for a paid operation.", action: "Top up the wallet." },
  spend_limit_reached: {
    when: "A tenant or integration spend limit, the limit of simultaneous paid operations, or the maximum cost of one operation was reached; `detail` says which.",
    action: "Wait for the window to pass or raise the limit.",
  },
  wallet_suspended: {
    when: "Exchange is suspended because the wallet is negative or blocked; every route but `GET /me` and `GET /wallet` answers this. The body has `topup_url` and `balance`.",
    action: "Top up; exchange resumes within 30 seconds.",
  },
  rate_limited: {
    when: "A rate limit was exceeded; the `RateLimit-*` headers show the window.",
    action: "Wait `Retry-After` seconds and retry with the same `Idempotency-Key`.",
  },
  internal_error: {
    when: "An internal failure; no detail is disclosed.",
    action: "Retry after a pause; report the `request_id` if it persists.",
  },
  service_unavailable: {
    when: "The limit store or the database is unavailable, or the API is not enabled on the cell; a write cannot be accepted safely.",
    action: "Retry after `Retry-After` with the same `Idempotency-Key`.",
  },
  upstream_unavailable: {
    when: "An external dependency (for example the language model) is unavailable, or a paid operation was asked for while the wallet's state is unknown.",
    action: "Retry after a pause with the same `Idempotency-Key`.",
  },
};
