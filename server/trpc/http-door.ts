import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import type { ErrorCode } from "@/server/errors";
import { BodyTooLargeError, readLimited } from "@/server/lib/read-limited";
import { isSameOrigin } from "@/server/lib/request-origin";
import { MAX_TRPC_BATCH } from "./batch-limit";
import { createContext } from "./init";
import { appRouter } from "./root";

/** Largest body of a console call, bytes (the public API's 256 KB). */
export const MAX_TRPC_BODY_BYTES = 256 * 1024;

const ENDPOINT = "/api/trpc";

/**
 * A refusal in tRPC's error shape, so the console's client shows `message`; `data.code` is the catalog
 * code, as for errors of procedures (server/trpc/init.ts).
 */
function refuse(status: number, trpcCode: TRPC_ERROR_CODE_KEY, code: ErrorCode, message: string): Response {
  return Response.json(
    {
      error: {
        message,
        code: TRPC_ERROR_CODES_BY_KEY[trpcCode],
        data: { code, httpStatus: status, path: null, errors: null },
      },
    },
    { status, headers: { "cache-control": "no-store" } },
  );
}

/**
 * CSRF: the session cookie is SameSite=Lax, and a state-changing call must come from our own origin
 * (browsers always send Origin on POST): the page's own origin however it was reached (`127.0.0.1:PORT`
 * as well as `localhost:PORT`; issue 76 item 5) or the cell's configured one. Anything else is refused
 * before a procedure runs.
 */
function sameOrigin(request: Request): boolean {
  return request.method === "GET" || isSameOrigin(request);
}

/**
 * The console's tRPC door (`/api/trpc/*`), in this order:
 * 1. a cross-site write → 403;
 * 2. a batch of more than {@link MAX_TRPC_BATCH} procedures → 400 `bad_request`, before any body is read;
 * 3. a body over {@link MAX_TRPC_BODY_BYTES} → 413 `payload_too_large`: refused by `Content-Length`
 *    at once, else counted as it streams in and cut off at the limit, never buffered whole;
 * 4. the procedures, with the signed-in staff user's context.
 */
export async function handleTrpcRequest(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return refuse(403, "FORBIDDEN", "bad_request", "Cross-site request refused.");
  const url = new URL(request.url);
  if (url.searchParams.get("batch") === "1") {
    const calls = url.pathname.slice(ENDPOINT.length + 1).split(",").length;
    if (calls > MAX_TRPC_BATCH) {
      return refuse(
        400,
        "BAD_REQUEST",
        "bad_request",
        `A batch may hold at most ${MAX_TRPC_BATCH} calls; this one holds ${calls}. Split it into smaller batches.`,
      );
    }
  }
  let req = request;
  if (request.method !== "GET" && request.method !== "HEAD") {
    let body: Uint8Array;
    try {
      body = await readLimited(request, MAX_TRPC_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLargeError)
        return refuse(
          413,
          "PAYLOAD_TOO_LARGE",
          "payload_too_large",
          `The body is larger than ${MAX_TRPC_BODY_BYTES} bytes (256 KB).`,
        );
      throw err;
    }
    req = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: body as BodyInit,
      signal: request.signal,
    });
  }
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req,
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: ({ req: r }) => createContext(r.headers),
  });
}
