/** Raised by {@link readLimited} when a body is larger than allowed. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

/**
 * Raised by {@link readLimited} when the body stream fails before its end: the client closed or reset the
 * connection mid-body (Node reports `aborted`, ECONNRESET). `cause` holds the stream's error.
 */
export class BodyIncompleteError extends Error {
  constructor(cause: unknown) {
    super("The request body ended before it was complete: the connection closed while it was being sent.", { cause });
    this.name = "BodyIncompleteError";
  }
}

/**
 * Reads a request body of at most `maxBytes`. A larger declared `Content-Length` is refused before
 * anything is read; otherwise the stream is counted as it arrives and cancelled at the limit, so a
 * large body is never held in memory.
 * @returns the bytes (empty when there is no body).
 * @throws BodyTooLargeError over the limit.
 * @throws BodyIncompleteError when the stream fails before its end (the client went away): never the
 *   stream's own error, whose ECONNRESET would read as an unreachable database to the API's error mapping.
 */
export async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw new BodyTooLargeError(maxBytes);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch (err) {
      throw new BodyIncompleteError(err);
    }
    const { done, value } = next;
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
