import type { Client } from "openapi-fetch";
import { ApiError } from "../errors.js";
import type { paths } from "../generated/openapi.js";

/** The typed openapi-fetch client over every documented route, sending through the SDK's transport. */
export type RawClient = Client<paths>;

/** Options of any call. */
export interface CallOptions {
  /** Aborts the call, its retries and pauses included. */
  signal?: AbortSignal;
}

/** Options of a POST or PATCH. */
export interface WriteOptions extends CallOptions {
  /**
   * Idempotency-Key of this operation (spec "Limits: Idempotency rules"). Default: a new UUID per call,
   * reused by the client's own retries. Pass your own to repeat an operation safely across processes
   * (for example after a crash): the API answers a repeat within 24 hours with the first result.
   */
  idempotencyKey?: string;
}

/** What the resource groups share: the raw client and the key maker. */
export interface Context {
  raw: RawClient;
  newIdempotencyKey(): string;
}

/** What openapi-fetch resolves to: `data` on 2xx, `error` (the parsed body) otherwise, and the Response. */
type Result = { data?: unknown; error?: unknown; response: Response };

/**
 * The answer's data, or the refusal as an ApiError.
 * @throws ApiError for any answer outside 2xx
 */
export async function unwrap<R extends Result>(pending: Promise<R>): Promise<NonNullable<R["data"]>> {
  const r = await pending;
  if (!r.response.ok) throw ApiError.fromResponse(r.response, r.error);
  return r.data as NonNullable<R["data"]>;
}

/** The key of a write: the caller's, or a new one. */
export function keyOf(ctx: Context, o: WriteOptions | undefined): string {
  return o?.idempotencyKey ?? ctx.newIdempotencyKey();
}
