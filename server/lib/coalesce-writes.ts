import { ServerResponse, type IncomingMessage } from "node:http";

/**
 * A response whose head, body and end leave in one socket write when they are produced in the same
 * event-loop turn, as a route handler's answer is (issue 22: the authenticated path close to the floor).
 * Pass it to `createServer({ ServerResponse: CoalescingServerResponse }, handler)`.
 *
 * Why: Next.js sends a route handler's `Response` by calling `flushHeaders()`, which writes the head alone,
 * then `write(chunk)` for the body and `end()` for the last chunk of the chunked encoding, which Node.js
 * sends together: two `write` system calls a response (`strace` of `GET /api/health`: a `write` of the
 * 267-byte head, then a `writev` of the body), each waking the client. On this project's VMs such a call
 * costs 30-110 µs. Here `flushHeaders()` corks the socket instead, so the head waits in the socket's buffer
 * for the body; `end()` uncorks it fully (Node.js does so on every `end()`), and the response leaves in
 * one `writev`, one TCP segment for a small answer.
 *
 * A response still open when the turn ends (a streamed page, Server-Sent Events) is uncorked by a
 * `setImmediate` right after it, so streaming is never held for more than that turn.
 */
export class CoalescingServerResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  override flushHeaders(): void {
    const socket = this.socket;
    if (socket && !this.headersSent) {
      socket.cork();
      setImmediate(() => {
        // end() already uncorked fully; uncork only what this response corked and did not end.
        if (!this.writableEnded && socket.writableCorked > 0) socket.uncork();
      });
    }
    super.flushHeaders();
  }
}
