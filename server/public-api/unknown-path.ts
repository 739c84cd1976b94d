import { randomUUID } from "node:crypto";
import { ApiError } from "@/server/errors";
import { problemResponse } from "./problem";

/**
 * The answer to a path under `/api/` that is no route of this app (app/api/[...path]/route.ts): 404
 * `not_found` as problem+json with its request id, like an unknown path of the public API, instead of
 * Next.js's HTML page. Integrators who mistype a version or a prefix get something their client parses.
 */
export function unknownApiPathResponse(request: Request): Response {
  const requestId = `req_${randomUUID().replace(/-/g, "")}`;
  const path = new URL(request.url).pathname;
  return problemResponse(
    new ApiError(
      "not_found",
      `No route ${request.method} ${path} exists; the public API is served under /api/public/v1.`,
    ),
    requestId,
  );
}
