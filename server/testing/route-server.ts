import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { PEER_HEADER } from "@/server/lib/client-ip";

/** A route handler of the app (`GET`/`POST` of an app/ route file). */
export type RouteHandler = (request: Request) => Promise<Response> | Response;

/** What {@link RouteServer.send} got back. */
export interface SentResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A local HTTP server in front of app route handlers, for tests that need real sockets. */
export interface RouteServer {
  port: number;
  /**
   * Sends one request over TCP. `from` is the local address to connect from (any 127.x.y.z on Linux),
   * so tests can be different TCP peers; `body` may be a string, bytes, or an async iterable of chunks
   * (sent chunked, without Content-Length).
   */
  send(
    method: string,
    path: string,
    opts?: { from?: string; headers?: Record<string, string>; body?: string | Uint8Array | AsyncIterable<Uint8Array> },
  ): Promise<SentResponse>;
  close(): Promise<void>;
}

/**
 * Serves app route handlers on 127.0.0.1 the way server/http-server.ts serves Next.js: the TCP peer
 * address is stamped in PEER_HEADER (replacing any copy a client sent) and the body is passed on as a
 * stream, read only as the handler reads it. The Request's URL is `origin` + the request path. `route` picks the handler for a request.
 */
export async function serveRoutes(
  origin: string,
  route: (method: string, path: string) => RouteHandler | undefined,
): Promise<RouteServer> {
  const server = createServer((req, res) => {
    req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const handler = route(req.method ?? "GET", (req.url ?? "/").split("?")[0]);
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    // As Next.js does (NextRequestAdapter.fromNodeNextRequest): the Node request itself is the body.
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : (req as unknown as BodyInit);
    const request = new Request(`${origin}${req.url}`, {
      method: req.method,
      headers,
      body,
      duplex: "half",
    } as RequestInit);
    void Promise.resolve(handler(request)).then(
      async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers));
        res.end(Buffer.from(await r.arrayBuffer()));
      },
      (err: unknown) => {
        res.writeHead(599).end(String(err));
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    send(method, path, opts = {}) {
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: "127.0.0.1", port, path, method, localAddress: opts.from, headers: opts.headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).toString("utf8"),
              }),
            );
          },
        );
        // The server may answer and close before a long body is sent: the answer is what counts.
        req.on("error", (err: NodeJS.ErrnoException) =>
          err.code === "EPIPE" || err.code === "ECONNRESET" ? undefined : reject(err),
        );
        const body = opts.body;
        if (body === undefined || typeof body === "string" || body instanceof Uint8Array) {
          req.end(body);
          return;
        }
        void (async () => {
          for await (const chunk of body) {
            if (req.destroyed || !req.write(chunk)) {
              if (req.destroyed) return;
              await new Promise((r) => req.once("drain", r));
            }
          }
          req.end();
        })().catch(() => {});
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
