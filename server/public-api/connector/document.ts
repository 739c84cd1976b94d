import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import {
  ClaimedJobSchema,
  ClaimQuery,
  JobParam,
  JobResultSchema,
  LeaseBody,
  LeaseRenewedSchema,
  ResultBody,
} from "@/server/schemas/connector";
import { ProblemSchema } from "@/server/schemas/problem";
import { CONNECTOR_PER_MIN, CONNECTOR_PREFIX, type ConnectorOperation } from "./door";

/** The connector document is an OpenAPI document like the public one. */
export type ConnectorDocument = ReturnType<typeof createDocument>;

/** Name of the connector token's security scheme. */
export const CONNECTOR_SCHEME = "ConnectorToken";

const DESCRIPTION = [
  "The site connector protocol: how a program on the tenant's website (the site connector, `npx site-connector`, or one you write for your CMS) takes the articles to publish and reports what it did. Guide: /docs/site-connector.",
  "",
  "Every call carries the site's connector token (`Authorization: Bearer sct_...`, shown once when the site is added). Each call counts as a poll: the site shows `working` in `GET /sites` for 5 minutes after it.",
  "Loop: `POST /jobs/claim?wait=25` (a long poll; 204 when nothing came due) → apply the job on the site, renewing the lease with `POST /jobs/{id}/heartbeat` before `lease_until` → `POST /jobs/{id}/result`. A lease not renewed returns the job to the queue; a call on a lost lease answers 409 `invalid_state`: drop the job. On stop, `POST /jobs/{id}/release` gives the lease back.",
  `Errors are \`application/problem+json\` (RFC 9457) from the API's catalog: branch on \`code\`. Rate limit: ${CONNECTOR_PER_MIN} calls a minute per site; 429 and 503 carry \`Retry-After\`.`,
].join("\n");

const header = (description: string, example: string) => z.string().meta({ description, example });
const COMMON_HEADERS = {
  "X-Request-Id": header(
    "id of this request; equals `request_id` of an error body",
    "req_3f1c0b1e2a4d4c8e9b7a6f5e4d3c2b1a",
  ),
  "RateLimit-Limit": header(
    "calls allowed per minute (the site's window; before the token is accepted, the address's)",
    "300",
  ),
  "RateLimit-Remaining": header("calls left in that window", "299"),
  "RateLimit-Reset": header("seconds until the window renews", "42"),
};

/** Problem codes every connector call may answer. */
const ANY_CALL: ErrorCode[] = ["invalid_api_key", "rate_limited", "internal_error", "service_unavailable"];

interface OperationSpec {
  id: ConnectorOperation;
  path: string;
  summary: string;
  description: string;
  query?: z.ZodObject;
  params?: boolean;
  body?: z.ZodType;
  ok: { status: 200 | 204; schema?: z.ZodType; description: string };
  problems: ErrorCode[];
}

const OPERATIONS: OperationSpec[] = [
  {
    id: "claimJob",
    path: "/jobs/claim",
    summary: "Claim the next job (long poll)",
    description:
      "Waits up to `wait` seconds for the site's oldest due job and answers it under a lease: the article's version this job sends, `publish_mode` after the site's drafts-only ceiling, and the article (title, slug, meta fields, cleaned HTML and markdown). A job whose article changed after it was queued is resolved `skipped` (superseded) without being sent. 204 when nothing came due: claim again.",
    query: ClaimQuery,
    ok: { status: 200, schema: ClaimedJobSchema, description: "a job under a lease" },
    problems: ["validation_failed"],
  },
  {
    id: "renewLease",
    path: "/jobs/{id}/heartbeat",
    summary: "Renew a job's lease",
    description:
      "Extends the lease from now by the lease length. Send it well before `lease_until` (a third of the way).",
    params: true,
    body: LeaseBody,
    ok: { status: 200, schema: LeaseRenewedSchema, description: "the new lease_until" },
    problems: ["bad_request", "not_found", "invalid_state", "payload_too_large", "validation_failed"],
  },
  {
    id: "reportResult",
    path: "/jobs/{id}/result",
    summary: "Report a job's result",
    description:
      "Ends the job: `applied` (with `published_url`, the page's address), `skipped`, `conflict` (the page was changed on the site since the connector's last write; `error` says how) or `failed` (`error`). `applied` with an address of a job in publish mode makes the article `published` and sends the event `article.published`.",
    params: true,
    body: ResultBody,
    ok: { status: 200, schema: JobResultSchema, description: "the job as it ended" },
    problems: ["bad_request", "not_found", "invalid_state", "payload_too_large", "validation_failed"],
  },
  {
    id: "releaseLease",
    path: "/jobs/{id}/release",
    summary: "Give a job's lease back",
    description: "For a connector that stops before it finished the job: the job is due again at once.",
    params: true,
    body: LeaseBody,
    ok: { status: 204, description: "the lease is given back" },
    problems: ["bad_request", "not_found", "invalid_state", "payload_too_large", "validation_failed"],
  },
];

function operation(op: OperationSpec): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = {
    [String(op.ok.status)]: {
      description: op.ok.description,
      headers: z.object(COMMON_HEADERS),
      ...(op.ok.schema ? { content: { "application/json": { schema: op.ok.schema } } } : {}),
    },
  };
  if (op.id === "claimJob")
    responses["204"] = { description: "nothing came due in time", headers: z.object(COMMON_HEADERS) };
  const codes = [...new Set([...ANY_CALL, ...op.problems])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERROR_CATALOG[c].status, [...(byStatus.get(ERROR_CATALOG[c].status) ?? []), c]);
  for (const [status, group] of [...byStatus].sort((a, b) => a[0] - b[0]))
    responses[String(status) as `4${string}`] = {
      description: `Problem: ${group.join(", ")}`,
      headers: z.object({
        ...COMMON_HEADERS,
        ...(status === 429 || status === 503 ? { "Retry-After": header("seconds to wait before retrying", "5") } : {}),
      }),
      content: { "application/problem+json": { schema: ProblemSchema } },
    };
  return {
    operationId: op.id,
    summary: op.summary,
    description: op.description,
    tags: ["jobs"],
    "x-problem-codes": codes,
    requestParams: {
      ...(op.params ? { path: JobParam } : {}),
      ...(op.query ? { query: op.query } : {}),
    },
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
    responses,
  } as ZodOpenApiOperationObject;
}

let cached: ConnectorDocument | undefined;

/**
 * The OpenAPI 3.1 document of the site connector protocol (served at `/api/connector/v1/openapi.json`,
 * written by `npm run openapi:connector`), from the protocol's zod shapes (server/schemas/connector.ts).
 * Built once per process.
 */
export function connectorDocument(): ConnectorDocument {
  if (cached) return cached;
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const op of OPERATIONS) paths[op.path] = { post: operation(op) };
  cached = createDocument({
    openapi: "3.1.0",
    info: {
      title: "Platform site connector protocol",
      version: "1.0.0",
      description: DESCRIPTION,
      contact: { name: "API support", url: "https://api.example.ru/developers" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: CONNECTOR_PREFIX, description: "this cell" }],
    security: [{ [CONNECTOR_SCHEME]: [] }],
    tags: [{ name: "jobs", description: "Publication jobs of the site the token belongs to" }],
    paths,
    components: {
      securitySchemes: {
        [CONNECTOR_SCHEME]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "sct_ connector token",
          description:
            "`Authorization: Bearer sct_...`: the site's connector token, shown once when the site is added.",
        },
      },
    },
  });
  return cached;
}

/** `GET /api/connector/v1/openapi.json`: the document, no token needed. */
export function connectorDocumentResponse(): Response {
  return Response.json(connectorDocument(), {
    headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" },
  });
}
