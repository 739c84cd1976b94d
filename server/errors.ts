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
