import type { APIResponse } from "@playwright/test";

// Only types here besides plain code: the e2e tests load this file in the Playwright process, without the server.

const PRISM_ERRORS = "https://stoplight.io/prism/errors#";
/** Prism's own answers for a request it did not forward: it refuses it (422, 401) or the document has no such operation (404, 405). */
const NOT_FORWARDED = new Set([
  "UNPROCESSABLE_ENTITY",
  "UNAUTHORIZED",
  "NO_PATH_MATCHED_ERROR",
  "NO_METHOD_MATCHED_ERROR",
]);

/** What the verdict reads of an answer (Playwright's APIResponse has it). */
export type SeenAnswer = Pick<APIResponse, "status" | "ok" | "headers" | "json">;

/** One violation as Prism reports it (`sl-violations` header, `validation` of its problem answers). */
interface PrismViolation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

/** Thrown when Prism reports a violation for an answer, or for a request the app accepts. */
export class PrismViolationError extends Error {
  constructor(what: string, violations: PrismViolation[]) {
    const lines = violations.length
      ? violations.map((v) => `[${v.severity ?? "?"}] ${(v.location ?? []).join(".")}: ${v.message ?? v.code ?? "?"}`)
      : ["(Prism gave no details; see .data/e2e/prism/prism.log)"];
    super(`Prism (proxy --errors, on the served OpenAPI document): ${what}:\n  - ${lines.join("\n  - ")}`);
    this.name = "PrismViolationError";
  }
}

/**
 * Judges an answer that came through Prism's proxy (started with `--errors`, e2e/prism/proxy.ts) and
 * returns the app's answer for the test to use:
 * - Prism's 500 `VIOLATIONS`: the app's answer is outside the document → throws;
 * - Prism refused the request (422 / 401) or knows no such operation (404 / 405): nothing reached the
 *   app, so the request goes to the app directly (`direct`, sent once); a 2xx there means the document
 *   refuses a request the app accepts → throws; otherwise the app's own refusal is returned, so tests of
 *   bad requests still see the app's problem answer;
 * - any other answer of Prism's own → throws; a forwarded answer with violations in `sl-violations`
 *   (warnings Prism does not turn into errors) → throws for the answer, and for the request when 2xx.
 */
export async function prismVerdict<R extends SeenAnswer>(
  method: string,
  path: string,
  res: R,
  direct: () => Promise<R>,
): Promise<R> {
  const reported = parseViolations(res.headers()["sl-violations"]);
  const own = await prismProblem(res);
  if (own) {
    const violations = own.validation ?? reported;
    if (own.kind === "VIOLATIONS")
      throw new PrismViolationError(`the answer to ${method} ${path} violates the document`, violations);
    if (!NOT_FORWARDED.has(own.kind))
      throw new PrismViolationError(
        `${method} ${path} ended in Prism's own error ${own.kind} (${own.detail})`,
        violations,
      );
    const app = await direct();
    if (app.ok()) {
      const why = own.kind.startsWith("NO_")
        ? [{ location: ["request"], severity: "Error", message: own.detail }]
        : violations;
      throw new PrismViolationError(
        `the app accepted ${method} ${path} (${app.status()}), but Prism refuses it (${own.kind})`,
        why,
      );
    }
    return app;
  }
  const onAnswer = reported.filter((v) => v.location?.[0] === "response");
  const onRequest = reported.filter((v) => v.location?.[0] !== "response");
  if (onAnswer.length)
    throw new PrismViolationError(`the answer to ${method} ${path} (${res.status()}) violates the document`, onAnswer);
  if (onRequest.length && res.ok())
    throw new PrismViolationError(
      `the app accepted ${method} ${path} (${res.status()}), but Prism finds the request outside the document`,
      onRequest,
    );
  return res;
}

async function prismProblem(
  res: SeenAnswer,
): Promise<{ kind: string; detail: string; validation?: PrismViolation[] } | undefined> {
  if (!(res.headers()["content-type"] ?? "").startsWith("application/problem+json")) return undefined;
  let body: { type?: unknown; detail?: unknown; validation?: PrismViolation[] };
  try {
    body = await res.json();
  } catch {
    return undefined;
  }
  if (typeof body.type !== "string" || !body.type.startsWith(PRISM_ERRORS)) return undefined;
  return { kind: body.type.slice(PRISM_ERRORS.length), detail: String(body.detail ?? ""), validation: body.validation };
}

/** `sl-violations`: a JSON list, cut and prefixed with "Too many violations!" past 8 KB. */
function parseViolations(header: string | undefined): PrismViolation[] {
  if (!header) return [];
  try {
    return JSON.parse(header) as PrismViolation[];
  } catch {
    return [{ location: ["(header)"], severity: "Error", message: header.slice(0, 2000) }];
  }
}
