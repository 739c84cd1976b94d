import { z } from "zod";
import "zod-openapi";
import { IDEMPOTENCY_KEY_PATTERN } from "@/server/public-api/execute";
import { IDEMPOTENCY_KEY_MAX } from "@/server/services/idempotency/idempotency";

/**
 * Response and request headers of the contract (spec "Endpoints: Common request rules"), registered once
 * as components (`header.id` / `param.id`) and referenced from every operation.
 */
export const H = {
  requestId: z
    .string()
    .min(1)
    .meta({
      description: "id of this request; equals `request_id` of an error body",
      example: "req_3f1c0b1e2a4d4c8e9b7a6f5e4d3c2b1a",
      header: { id: "X-Request-Id" },
    }),
  rateLimitLimit: z.string().meta({
    description:
      "requests allowed per minute in the tightest window (key or tenant) of this rate class; on an answer given before a key was accepted, the caller address's window",
    example: "600",
    header: { id: "RateLimit-Limit" },
  }),
  rateLimitRemaining: z
    .string()
    .meta({ description: "requests left in that window", example: "599", header: { id: "RateLimit-Remaining" } }),
  rateLimitReset: z
    .string()
    .meta({ description: "seconds until the window renews", example: "42", header: { id: "RateLimit-Reset" } }),
  retryAfter: z.string().meta({
    description: "seconds to wait before retrying (with the same Idempotency-Key)",
    example: "5",
    header: { id: "Retry-After" },
  }),
  cacheControl: z.string().meta({
    description:
      "caching rule of this route: `private, no-store` for conversation and message reads, `no-store` for an article",
    example: "private, no-store",
    header: { id: "Cache-Control" },
  }),
  etag: z.string().meta({
    description: "strong entity tag of the returned version; equals the resource's `etag` field",
    example: '"3-q1w2e3r4t5y6u7i8o9p0a1"',
    header: { id: "ETag" },
  }),
  deprecation: z
    .string()
    .meta({ description: "when the route was deprecated (`@<unix time>`)", header: { id: "Deprecation" } }),
  sunset: z.string().meta({ description: "when the route stops answering (HTTP date)", header: { id: "Sunset" } }),
  idempotentReplayed: z.literal("true").meta({
    description:
      "sent (as `true`) only when this answer was replayed from an earlier request with the same Idempotency-Key: nothing was done again. Absent on the first answer",
    example: "true",
    header: { id: "Idempotent-Replayed" },
  }),
  walletState: z.literal("unknown").meta({
    description: "sent when the wallet state cannot be read right now",
    header: { id: "Service-Wallet-State" },
  }),
};

/**
 * The `Idempotency-Key` header as the pipeline accepts it: 1 to 255 visible ASCII characters, the
 * pipeline's own pattern (server/public-api/execute.ts). zod-openapi derives a parameter's `required` from the schema's
 * optionality alone (the `required` of `param` meta is overwritten), so the optional mode wraps the
 * schema in `.optional()` and carries the meta on the wrapper.
 */
function idempotencyKey(required: boolean) {
  const key = z.string().min(1).max(IDEMPOTENCY_KEY_MAX).regex(IDEMPOTENCY_KEY_PATTERN);
  const meta = {
    description: required
      ? "required: a new value (usually a UUID v4) per operation; a repeat within 24 hours answers the first result"
      : "optional: honoured when sent (a new value, usually a UUID v4, per operation; a repeat within 24 hours answers the first result)",
    example: "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b",
    param: {
      in: "header" as const,
      name: "Idempotency-Key",
      id: required ? "IdempotencyKeyRequired" : "IdempotencyKey",
    },
  };
  return required ? key.meta(meta) : key.optional().meta(meta);
}
const IDEMPOTENCY_KEY = { required: idempotencyKey(true), optional: idempotencyKey(false) };

/**
 * The `Idempotency-Key` request header (spec "Common request rules": accepted on POST and PATCH,
 * required where an endpoint says so, ignored on PUT and DELETE), one registered parameter per mode:
 * `IdempotencyKeyRequired` (`required: true`) and `IdempotencyKey` (optional).
 */
export function idempotencyKeyParam(required: boolean) {
  return required ? IDEMPOTENCY_KEY.required : IDEMPOTENCY_KEY.optional;
}

/**
 * Headers of a successful answer: the request id and rate limits always, the route's own when it declares them,
 * and on a route that honours `Idempotency-Key` (`idempotent`) the optional `Idempotent-Replayed` (issue 75 item 6).
 */
export function successHeaders(opts: {
  cacheControl?: string;
  deprecated?: boolean;
  etag?: boolean;
  idempotent?: boolean;
}) {
  return z.object({
    "X-Request-Id": H.requestId,
    "RateLimit-Limit": H.rateLimitLimit,
    "RateLimit-Remaining": H.rateLimitRemaining,
    "RateLimit-Reset": H.rateLimitReset,
    "Service-Wallet-State": H.walletState.optional(),
    ...(opts.cacheControl ? { "Cache-Control": H.cacheControl } : {}),
    ...(opts.etag ? { ETag: H.etag } : {}),
    ...(opts.idempotent ? { "Idempotent-Replayed": H.idempotentReplayed.optional() } : {}),
    ...(opts.deprecated ? { Deprecation: H.deprecation, Sunset: H.sunset } : {}),
  });
}

/**
 * Headers of an error answer: the request id and rate limits always (before a key is accepted they are
 * the caller address's window, docs/interpretations.md); `Retry-After` on 429 and 503.
 */
export function problemHeaders(status: number, deprecated: boolean) {
  return z.object({
    "X-Request-Id": H.requestId,
    "RateLimit-Limit": H.rateLimitLimit,
    "RateLimit-Remaining": H.rateLimitRemaining,
    "RateLimit-Reset": H.rateLimitReset,
    "Service-Wallet-State": H.walletState.optional(),
    ...(status === 429 || status === 503 ? { "Retry-After": H.retryAfter } : {}),
    ...(deprecated ? { Deprecation: H.deprecation, Sunset: H.sunset } : {}),
  });
}

/**
 * The `If-Match` request header of a change under optimistic concurrency (spec "Common request rules":
 * `PATCH /leads/{id}`): the entity tag read from `ETag` or the resource's `etag`.
 */
export const IF_MATCH_PARAM = z
  .string()
  .min(1)
  .meta({
    description:
      "required: the resource's current entity tag (its `ETag` header or `etag` field); absent → 428 precondition_required, not an entity tag → 400 bad_request, not the current one → 412 precondition_failed with the current `etag`",
    example: '"3-Q2hhbmdlZEJ5U29tZW9uZU"',
    param: { in: "header" as const, name: "If-Match", id: "IfMatch" },
  });

/**
 * The `If-Match` request header of a change that honours it when sent (`ifMatch: "optional"`, e.g.
 * `PATCH /articles/{id}`, preview `articles-writes`): without it the change applies to the current version.
 */
export const IF_MATCH_OPTIONAL_PARAM = z
  .string()
  .min(1)
  .optional()
  .meta({
    description:
      "optional: the resource's entity tag as read from its `ETag` header; when sent and not the current one → 412 precondition_failed with the current `etag`; not an entity tag → 400 bad_request; `*` matches any version",
    example: '"3-Q2hhbmdlZEJ5U29tZW9uZU"',
    param: { in: "header" as const, name: "If-Match", id: "IfMatchOptional" },
  });
