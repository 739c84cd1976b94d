import type { TRPCError } from "@trpc/server";
import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";

type TrpcCode = TRPCError["code"];

/** HTTP status of a catalog entry → the tRPC code with that status. */
const BY_STATUS: Record<number, TrpcCode> = {
  // The console's forms show `errors[]` of a 422 next to their fields; tRPC's BAD_REQUEST is what its
  // clients treat as "fix the input", so validation keeps that code (the catalog code travels in `data.code`).
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  412: "PRECONDITION_FAILED",
  413: "PAYLOAD_TOO_LARGE",
  422: "BAD_REQUEST",
  428: "PRECONDITION_REQUIRED",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  503: "SERVICE_UNAVAILABLE",
};

/**
 * Catalog code → tRPC code, for every code of the error catalog (DESIGN "one catalog, two mappings"):
 * derived from the code's HTTP status, so a new catalog entry is mapped the day it is added.
 * @throws Error at module load when a catalog status has no tRPC counterpart (caught by the tests).
 */
export const TRPC_CODE = Object.fromEntries(
  (Object.keys(ERROR_CATALOG) as ErrorCode[]).map((code) => {
    const trpc = BY_STATUS[ERROR_CATALOG[code].status];
    if (!trpc) throw new Error(`No tRPC code for HTTP ${ERROR_CATALOG[code].status} (catalog code ${code})`);
    return [code, trpc];
  }),
) as Record<ErrorCode, TrpcCode>;
