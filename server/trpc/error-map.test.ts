import { describe, expect, it } from "vitest";
import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import { TRPC_CODE } from "./error-map";

describe("catalog → tRPC error map", () => {
  const codes = Object.keys(ERROR_CATALOG) as ErrorCode[];

  it("maps every catalog code, and only internal_error to INTERNAL_SERVER_ERROR", () => {
    expect(Object.keys(TRPC_CODE).sort()).toEqual([...codes].sort());
    expect(codes.filter((c) => TRPC_CODE[c] === "INTERNAL_SERVER_ERROR")).toEqual(["internal_error"]);
  });

  it.each([
    ["invalid_api_key", "UNAUTHORIZED"],
    ["wallet_suspended", "PAYMENT_REQUIRED"],
    ["insufficient_funds", "PAYMENT_REQUIRED"],
    ["scope_missing", "FORBIDDEN"],
    ["not_found", "NOT_FOUND"],
    ["invalid_state", "CONFLICT"],
    ["precondition_failed", "PRECONDITION_FAILED"],
    ["precondition_required", "PRECONDITION_REQUIRED"],
    ["payload_too_large", "PAYLOAD_TOO_LARGE"],
    ["validation_failed", "BAD_REQUEST"],
    ["rate_limited", "TOO_MANY_REQUESTS"],
    ["upstream_unavailable", "SERVICE_UNAVAILABLE"],
  ] as const)("%s → %s", (code, trpc) => {
    expect(TRPC_CODE[code]).toBe(trpc);
  });
});
