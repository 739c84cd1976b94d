import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import type { AnyRoute } from "@/server/public-api/define-route";
import { PIPELINE_STEPS } from "@/server/public-api/pipeline-steps";

/**
 * Codes any request may answer whatever its route: 500, and 503 when the database cannot be reached
 * (spec "Errors: Per-endpoint codes").
 */
const ANY_REQUEST: readonly ErrorCode[] = ["internal_error", "service_unavailable"];

/**
 * The problem codes one route can answer: those each step of the pipeline may answer for it
 * (server/public-api/pipeline-steps.ts, read in the same list the pipeline runs), plus the handler's own
 * `problems`. `signature_invalid` is reserved and never returned in v1, so no route documents it.
 * @returns codes in catalog order, without duplicates.
 */
export function problemCodes(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(ANY_REQUEST);
  for (const step of PIPELINE_STEPS) for (const c of step.problems(route)) codes.add(c);
  for (const c of route.problems ?? []) codes.add(c);
  const order = Object.keys(ERROR_CATALOG) as ErrorCode[];
  return order.filter((c) => codes.has(c));
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
