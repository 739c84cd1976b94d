import { env } from "@/server/env";
import { ApiError, ERROR_CATALOG } from "@/server/errors";

/**
 * RFC 9457 body of an error (spec "Problem body"): `type` = `{cell_origin}/developers/errors#<code>`,
 * `title` fixed per code, `detail` for people, `request_id` equal to `X-Request-Id`, plus the code's extras.
 */
export function problemBody(err: ApiError, requestId: string): Record<string, unknown> {
  return {
    type: `${env().cellOrigins[env().cell]}/developers/errors#${err.code}`,
    title: ERROR_CATALOG[err.code].title,
    status: err.status,
    code: err.code,
    detail: err.message,
    request_id: requestId,
    ...err.extras,
  };
}

/** The problem+json HTTP answer of an error, with its own headers (`Allow`, `Retry-After`...). */
export function problemResponse(err: ApiError, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(err, requestId)), {
    status: err.status,
    headers: { ...headers, ...err.headers, "content-type": "application/problem+json", "x-request-id": requestId },
  });
}
