import { ApiError } from "@/server/errors";
import { BodyIncompleteError, BodyTooLargeError, readLimited } from "@/server/lib/read-limited";

/** Largest accepted request body, bytes (spec "Limits": 256 KB). */
export const MAX_BODY_BYTES = 256 * 1024;

const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * Reads and parses a JSON request body.
 * - Over {@link MAX_BODY_BYTES} (by Content-Length, or counted while streaming) → 413 `payload_too_large`;
 *   the stream is cancelled at the limit, so the rest is never buffered.
 * - A body with another Content-Type, invalid UTF-8 or invalid JSON → 400 `bad_request`.
 * - A body whose stream broke off (the client closed the connection mid-body) → 400 `bad_request`.
 * @returns the parsed value, or `undefined` when no body was sent.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readLimited(request, MAX_BODY_BYTES);
  } catch (err) {
    throw bodyProblem(err);
  }
  if (bytes.length === 0) return undefined;
  const type = request.headers.get("content-type");
  if (!type || !JSON_TYPE.test(type.trim())) {
    throw new ApiError("bad_request", "Send the body as JSON with Content-Type: application/json.");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError("bad_request", "The body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("bad_request", "The body is not valid JSON.");
  }
}

function tooLarge(): ApiError {
  return new ApiError("payload_too_large", `The body is larger than ${MAX_BODY_BYTES} bytes (256 KB).`);
}

/**
 * The body limit of a route that takes no body (spec "Limits": 256 KB for every request): a declared or
 * streamed body over {@link MAX_BODY_BYTES} answers 413 `payload_too_large`; a smaller one is ignored, as
 * before, and so is one that broke off. Reading stops at the limit, so nothing larger is ever buffered.
 */
export async function refuseLargeBody(request: Request): Promise<void> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return;
  try {
    await readLimited(request, MAX_BODY_BYTES);
  } catch (err) {
    // A body that broke off is ignored like any other body here: the route does not read it.
    if (err instanceof BodyIncompleteError) return;
    throw bodyProblem(err);
  }
}

/** The answer to a body that could not be read: 413 over the limit, 400 when it broke off, else as is. */
function bodyProblem(err: unknown): unknown {
  if (err instanceof BodyTooLargeError) return tooLarge();
  if (err instanceof BodyIncompleteError) {
    return new ApiError("bad_request", "The request body ended early: the connection closed before all of it arrived.");
  }
  return err;
}
