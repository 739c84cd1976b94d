import { z } from "zod";
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from "zod-openapi";
import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import type { AnyRoute } from "@/server/public-api/define-route";
import { ProblemSchema } from "@/server/schemas/problem";
import {
  IF_MATCH_OPTIONAL_PARAM,
  IF_MATCH_PARAM,
  idempotencyKeyParam,
  problemHeaders,
  successHeaders,
} from "./headers";
import { idempotencyMode, scopesOf } from "@/server/public-api/define-route";
import { codesByStatus, problemCodes } from "./problem-codes";

/** Name of the bearer security scheme in `components.securitySchemes`. */
export const SECURITY_SCHEME = "ApiKey";

const RATE_TEXT = { read: "reads", write: "writes", paid: "paid operations" } as const;

/** Tag of the `/test-helpers/*` routes (issue 69: test keys only, preview `test-mode`). */
export const TEST_HELPERS_TAG = "Test helpers";

/**
 * The tag of a route: its first path segment (`/cards/{code}` → `cards`); every `/test-helpers/*` route
 * is under {@link TEST_HELPERS_TAG}.
 */
export function tagOf(route: AnyRoute): string {
  const first = route.path.split("/")[1] || "root";
  return first === "test-helpers" ? TEST_HELPERS_TAG : first;
}

/**
 * The OpenAPI operation of one route, built only from its declaration: parameters (path and query from
 * the zod input side, `Idempotency-Key`), the JSON body, the declared answers (output side) with the
 * common headers, every problem answer the route can give (see {@link problemCodes}) with an example per
 * code, and the scope as the role of the bearer requirement (OpenAPI 3.1 allows roles for http schemes).
 */
export function operationOf(route: AnyRoute): ZodOpenApiOperationObject {
  const deprecated = Boolean(route.deprecation);
  const idem = idempotencyMode(route);
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: `${status} ${statusText(Number(status))}`,
      headers: successHeaders({
        cacheControl: route.cacheControl,
        deprecated,
        etag: route.etag && Number(status) < 300,
        idempotent: idem !== "none" && Number(status) < 300,
      }),
      ...(schema ? { content: { "application/json": { schema } } } : {}),
    };
  }
  const codes = problemCodes(route);
  for (const [status, group] of codesByStatus(codes)) {
    responses[String(status) as `4${string}`] = {
      description: `Problem: ${group.join(", ")}`,
      headers: problemHeaders(status, deprecated),
      content: {
        "application/problem+json": {
          schema: ProblemSchema,
          examples: Object.fromEntries(
            group.map((c) => [c, { summary: ERROR_CATALOG[c].title, value: exampleProblem(c) }]),
          ),
        },
      },
    };
  }
  const scopes = scopesOf(route);
  const scopeText =
    scopes.length === 0
      ? "Scope: none (any valid key)."
      : scopes.length === 1
        ? `Scope: \`${scopes[0]}\`.`
        : `Scope: any one of ${scopes.map((x) => `\`${x}\``).join(", ")}.`;
  const notes = [
    route.description ?? "",
    scopeText,
    `Rate class: ${RATE_TEXT[route.rate]}.`,
    idem === "required"
      ? "`Idempotency-Key` is required; a replayed answer carries `Idempotent-Replayed: true`."
      : idem === "optional"
        ? "`Idempotency-Key` is honoured when sent; a replayed answer carries `Idempotent-Replayed: true`."
        : "",
    route.walletExempt ? "Served while data exchange is suspended." : "",
    route.pii ? "The answer carries personal data (RU cell: the transfer rule applies)." : "",
    route.preview
      ? `Preview \`${route.preview}\`: only for tenants with this preview; for others it answers 404 \`not_found\`.`
      : "",
  ].filter(Boolean);
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: notes.join(" "),
    tags: [tagOf(route)],
    ...(deprecated ? { deprecated: true } : {}),
    // OpenAPI: requirements in the list are alternatives, so a route taking any of several scopes lists one each.
    security:
      scopes.length > 1 ? scopes.map((x) => ({ [SECURITY_SCHEME]: [x] })) : [{ [SECURITY_SCHEME]: [...scopes] }],
    "x-scope": route.scope,
    "x-rate-class": route.rate,
    "x-problem-codes": codes,
    requestParams: {
      ...(route.params ? { path: route.params as z.ZodObject } : {}),
      ...(route.query ? { query: route.query as z.ZodObject } : {}),
    },
    ...(idem !== "none" || route.ifMatch
      ? {
          parameters: [
            ...(idem !== "none" ? [idempotencyKeyParam(idem === "required")] : []),
            ...(route.ifMatch === "optional" ? [IF_MATCH_OPTIONAL_PARAM] : route.ifMatch ? [IF_MATCH_PARAM] : []),
          ],
        }
      : {}),
    ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: route.body } } } } : {}),
    responses,
  } as ZodOpenApiOperationObject;
}

/** A problem body as the API answers it for `code`, used as the documented example. */
export function exampleProblem(code: ErrorCode): z.infer<typeof ProblemSchema> {
  const { status, title } = ERROR_CATALOG[code];
  const base = {
    type: `https://api.example.ru/developers/errors#${code}`,
    title,
    status,
    code,
    detail: title + ".",
    request_id: "req_3f1c0b1e2a4d4c8e9b7a6f5e4d3c2b1a",
  };
  if (code === "validation_failed")
    return { ...base, errors: [{ field: "/limit", code: "out_of_range", message: "must be from 1 to 100" }] };
  if (code === "wallet_suspended")
    return {
      ...base,
      topup_url: "https://app.example.ru/console/wallet",
      balance: { amount: "-12.50", currency: "RUB" },
    };
  if (code === "wrong_cell") return { ...base, correct_base_url: "https://api.example.com/api/public/v1" };
  return base;
}

function statusText(status: number): string {
  return ({ 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content" } as Record<number, string>)[status] ?? "";
}
