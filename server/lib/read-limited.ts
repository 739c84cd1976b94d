/** Raised by {@link readLimited} when a body is larger than allowed. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

/**
 * Reads a request body of at most `maxBytes`. A larger declared `Content-Length` is refused before
 * anything is read; otherwise the stream is counted as it arrives and cancelled at the limit, so a
 * large body is never held in memory.
 * @returns the bytes (empty when there is no body).
 * @throws BodyTooLargeError over the limit.
 */
export async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw new BodyTooLargeError(maxBytes);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
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
