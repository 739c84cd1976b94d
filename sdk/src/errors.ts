import type { FieldError, Operation, Problem, ProblemCode } from "./types.js";

/**
 * `code` of an {@link ApiError}: a catalog code of the spec, or `unexpected_response` when the answer was
 * not a problem body at all (for example an HTML 502 of a proxy in front of the API).
 */
export type ApiErrorCode = ProblemCode | "unexpected_response";

/**
 * A refusal of the API (spec "Errors"): any answer outside 2xx, after the retries the client is allowed
 * to make. Branch on `code`; log `requestId` (it is what support asks for).
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** Catalog code (`not_found`, `validation_failed`, `rate_limited`, ...). */
  readonly code: ApiErrorCode;
  /** HTTP status. */
  readonly status: number;
  /** `request_id` of the problem, or the `X-Request-Id` header; null when neither came back. */
  readonly requestId: string | null;
  /** Field errors of `validation_failed` (JSON Pointers such as `/limit`, `/buttons/0/url`); empty otherwise. */
  readonly errors: FieldError[];
  /** Seconds from the `Retry-After` header (429, 503, 409 `operation_in_progress`), or null. */
  readonly retryAfterSec: number | null;
  /** The whole problem body (`correct_base_url` of `wrong_cell`, `topup_url` and `balance` of `wallet_suspended`), or null. */
  readonly problem: Problem | null;

  constructor(init: {
    status: number;
    code: ApiErrorCode;
    message: string;
    requestId: string | null;
    errors?: FieldError[];
    retryAfterSec?: number | null;
    problem?: Problem | null;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.retryAfterSec = init.retryAfterSec ?? null;
    this.problem = init.problem ?? null;
  }

  /**
   * The error of a non-2xx answer. `body` is the answer already parsed as JSON where it was JSON (or its
   * text otherwise); a body without a string `code` gives `unexpected_response`.
   */
  static fromResponse(response: Response, body: unknown): ApiError {
    const problem = isProblem(body) ? body : null;
    const requestId = problem?.request_id ?? response.headers.get("x-request-id");
    const code: ApiErrorCode = problem?.code ?? "unexpected_response";
    const detail = problem?.detail ?? `HTTP ${response.status} ${response.statusText || ""}`.trim();
    return new ApiError({
      status: response.status,
      code,
      message: `${code} (${response.status}): ${detail}${requestId ? ` [${requestId}]` : ""}`,
      requestId,
      errors: Array.isArray(problem?.errors) ? problem.errors : [],
      retryAfterSec: retryAfterSeconds(response.headers.get("retry-after")),
      problem,
    });
  }
}

/** True when `err` is an {@link ApiError}, optionally with one of `codes`. */
export function isApiError(err: unknown, ...codes: ApiErrorCode[]): err is ApiError {
  return err instanceof ApiError && (codes.length === 0 || codes.includes(err.code));
}

/**
 * The request never got an answer: DNS, connection or TLS failure, a reset, or the client's `timeoutMs`
 * passed (`timedOut`). Thrown after the retries allowed for the request were spent. Whether a POST
 * without an Idempotency-Key took effect is unknown; with one (the SDK always sends one), repeat it with
 * the same key.
 */
export class ApiConnectionError extends Error {
  override readonly name = "ApiConnectionError";
  constructor(
    message: string,
    readonly timedOut: boolean,
    /** Attempts made, the first included. */
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `waitForOperation` ran out of time; `operation` is the last state read (still `queued` or `running`). */
export class OperationTimeoutError extends Error {
  override readonly name = "OperationTimeoutError";
  constructor(
    readonly operation: Operation,
    readonly timeoutMs: number,
  ) {
    super(`operation ${operation.id} is still ${operation.status} after ${timeoutMs} ms`);
  }
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { code?: unknown }).code === "string" &&
    typeof (body as { status?: unknown }).status === "number"
  );
}

/**
 * `Retry-After` in seconds: delay-seconds (`5`) or an HTTP date (seconds from now, at least 0); null when
 * absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
