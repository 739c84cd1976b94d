import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import type { AnyRoute } from "@/server/public-api/define-route";

/**
 * Codes every authenticated route may answer (spec "Errors: Per-endpoint codes"). `signature_invalid`
 * is reserved and never returned in v1, so it is not documented on any route.
 */
export const ALWAYS: readonly ErrorCode[] = [
  "invalid_api_key",
  "wrong_cell",
  "integration_inactive",
  "tenant_inactive",
  "ip_not_allowed",
  "feature_not_in_plan",
  "validation_failed", // a route without query parameters still refuses unknown ones with 422
  "rate_limited",
  "internal_error",
  "service_unavailable",
];

/**
 * The problem codes one route can answer, derived from its declaration the way the pipeline checks them
 * (server/public-api/pipeline.ts), plus the handler's own `problems`:
 * - 402 `wallet_suspended` unless `walletExempt`; paid routes also 503 `upstream_unavailable` (wallet unknown)
 *   and 402 `insufficient_funds` / `spend_limit_reached`;
 * - 403 `scope_missing` with a scope, `pii_transfer_not_allowed` with `pii`;
 * - POST and PATCH take `Idempotency-Key`: 400 `bad_request` for a malformed key, 409 `idempotency_conflict`
 *   and `operation_in_progress`; 400 `idempotency_key_required` when it is required;
 * - a body: 400 `bad_request` (not JSON), 413 `payload_too_large`;
 * - path parameters: 404 `not_found`.
 * @returns codes in catalog order, without duplicates.
 */
export function problemCodes(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(ALWAYS);
  if (!route.walletExempt) codes.add("wallet_suspended");
  if (route.rate === "paid") ["upstream_unavailable", "insufficient_funds", "spend_limit_reached"].forEach((c) => codes.add(c as ErrorCode));
  if (route.scope) codes.add("scope_missing");
  if (route.pii) codes.add("pii_transfer_not_allowed");
  const idem = idempotencyMode(route);
  if (idem !== "none") ["bad_request", "idempotency_conflict", "operation_in_progress"].forEach((c) => codes.add(c as ErrorCode));
  if (idem === "required") codes.add("idempotency_key_required");
  if (route.body) ["bad_request", "payload_too_large"].forEach((c) => codes.add(c as ErrorCode));
  if (route.params || route.path.includes("{")) codes.add("not_found");
  for (const c of route.problems ?? []) codes.add(c);
  const order = Object.keys(ERROR_CATALOG) as ErrorCode[];
  return order.filter((c) => codes.has(c));
}

/** How the pipeline treats `Idempotency-Key` on this route: POST and PATCH default to `optional`. */
export function idempotencyMode(route: AnyRoute): "required" | "optional" | "none" {
  return route.idempotency ?? (route.method === "POST" || route.method === "PATCH" ? "optional" : "none");
}

/** Groups codes by HTTP status: `{ "404": ["not_found"], ... }`. */
export function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const c of codes) {
    const s = ERROR_CATALOG[c].status;
    out.set(s, [...(out.get(s) ?? []), c]);
  }
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}
