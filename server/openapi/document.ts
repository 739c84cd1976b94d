import { createDocument, type ZodOpenApiPathsObject } from "zod-openapi";
import type { AnyRoute } from "@/server/public-api/define-route";
import { PREVIEW_ROUTES, ROUTES } from "@/server/public-api/routes";
import type { PreviewFeature } from "@/server/schemas/previews";
import { operationOf, SECURITY_SCHEME, tagOf, TEST_HELPERS_TAG } from "./operation";
import { webhooksOf } from "./webhooks";

/** The OpenAPI document as plain JSON. */
export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Tag of the webhook deliveries (`webhooks`) and of the event journal's routes (`/events`). */
const EVENTS_TAG = "events";

/** Version of the document's `info`; the API version itself is the path (`/api/public/v1`). */
export const DOCUMENT_VERSION = "1.0.0";

const DESCRIPTION = [
  "Public HTTP API v1 of the platform: AI sales chat, CRM leads, SEO articles, strategist, analytics and webhooks.",
  "",
  "Every request carries `Authorization: Bearer <API_KEY>`; a key works only in its own cell. Errors are `application/problem+json` (RFC 9457): branch on `code`.",
  "Lists answer `{data, next_cursor}`; pass `next_cursor` back as `cursor` (valid 24 hours); null ends the list.",
  "POST and PATCH honour `Idempotency-Key` for 24 hours. Every answer carries `X-Request-Id`; authenticated answers carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; 429 and 503 carry `Retry-After`.",
  "Inside v1 only additive changes occur: ignore unknown fields and treat value sets as open.",
].join("\n");

/**
 * Builds the OpenAPI 3.1 document of the public API from `routes` (default: every Available route of
 * the route table; Planned routes are not in the table, so never documented) and the event catalog.
 * Schemas come only from the routes' zod declarations (input side for parameters and bodies, output
 * side for answers).
 * @throws Error when a route's schema cannot be represented (e.g. a transform on the answer side).
 */
export function buildOpenApiDocument(routes: readonly AnyRoute[] = ROUTES): OpenApiDocument {
  try {
    return render(routes);
  } catch (err) {
    // Name the route whose schemas cannot be rendered: one bad declaration would otherwise read as a
    // failure of every test that validates answers.
    for (const route of routes) {
      try {
        render([route]);
      } catch (one) {
        throw new Error(
          `OpenAPI document: ${route.operationId} (${route.method} ${route.path}): ${(one as Error).message}`,
          { cause: one },
        );
      }
    }
    throw err;
  }
}

function render(routes: readonly AnyRoute[]): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    (item as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(route);
  }
  // `events` names both the event journal's routes (`GET /events`) and the webhook deliveries of the
  // document's `webhooks`: one tag, listed once (issue 75 item 1).
  const tags = [...new Set([...routes.map(tagOf), EVENTS_TAG])].map((name) =>
    name === TEST_HELPERS_TAG
      ? {
          name,
          description:
            "Test keys only (preview `test-mode`): set the sandbox to a state worth testing. A live key gets 404 `not_found`.",
        }
      : name === EVENTS_TAG
        ? {
            name,
            description:
              "Webhook deliveries sent to subscribers (see the webhooks section), and the journal of the events of the last 30 days (`GET /events`) to catch up after an outage",
          }
        : { name },
  );
  return createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Platform public API",
        version: DOCUMENT_VERSION,
        description: DESCRIPTION,
        contact: { name: "API support", url: "https://api.example.ru/developers" },
        license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      },
      servers: [
        {
          url: "/api/public/v1",
          description: "this cell (a key works only in its own cell; `GET /me` shows `base_url`)",
        },
      ],
      security: [{ [SECURITY_SCHEME]: [] }],
      tags,
      paths,
      webhooks: webhooksOf(),
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "API key",
            description:
              "`Authorization: Bearer <API_KEY>`. The role listed on an operation is the scope it needs; `GET /me` lists the key's effective scopes.",
          },
        },
      },
    },
    { override: publishOverride },
  );
}

/**
 * Rendering rules of the published document:
 * - answer objects stay open (spec "Versioning" 2: fields may be added inside v1; clients ignore unknown
 *   ones), so `additionalProperties: false` is dropped unless the schema is declared strict; the tests'
 *   response validator closes them again to catch undocumented fields;
 * - a default of a text parameter is shown as text (parameters parsed from text but declared with their
 *   real type, `limit` and boolean filters, keep theirs: server/schemas/common.ts).
 */
function publishOverride(ctx: {
  jsonSchema: Record<string, unknown>;
  zodSchema: unknown;
  io: "input" | "output";
}): void {
  const { jsonSchema: js, io } = ctx;
  const def = (ctx.zodSchema as { _zod: { def: { type: string; catchall?: { _zod: { def: { type: string } } } } } })
    ._zod.def;
  if (
    io === "output" &&
    def.type === "object" &&
    def.catchall?._zod.def.type !== "never" &&
    js.additionalProperties === false
  )
    delete js.additionalProperties;
  if (io === "input" && def.type === "default" && js.default === undefined) {
    const value = (def as unknown as { defaultValue: unknown }).defaultValue;
    if (value !== undefined && typeof value !== "function") js.default = value;
  }
  if (io === "input" && js.type === "string" && js.default !== undefined && typeof js.default !== "string")
    js.default = String(js.default);
}

const cached = new Map<string, OpenApiDocument>();

/** The route as a tenant with `preview` sees it: its `previewVariant`'s answers and query when that is the preview. */
function withVariant(route: AnyRoute, preview: PreviewFeature | undefined): AnyRoute {
  const v = route.previewVariant;
  if (!v || v.preview !== preview) return route;
  return { ...route, responses: v.responses, etag: v.etag ?? route.etag, query: v.query ?? route.query };
}

/**
 * The document of the route table, built once per process. With `preview`, the routes of that preview
 * feature are added (served at `/api/public/v1/openapi.json?preview=<feature>`); the default document
 * never lists them.
 */
export function openApiDocument(preview?: PreviewFeature): OpenApiDocument {
  const name = preview ?? "";
  let doc = cached.get(name);
  if (!doc) {
    doc = buildOpenApiDocument(
      preview
        ? [...ROUTES.map((r) => withVariant(r, preview)), ...PREVIEW_ROUTES.filter((r) => r.preview === preview)]
        : ROUTES,
    );
    cached.set(name, doc);
  }
  return doc;
}

/**
 * The document with the routes of every preview feature, built once per process: what the SDK's types
 * are generated from (`npm run openapi -- <file> --all-previews`; sdk/), so that its methods of preview
 * routes are typed. Each such operation's description names its preview; the served documents are
 * {@link openApiDocument}'s.
 */
export function openApiDocumentWithAllPreviews(): OpenApiDocument {
  let doc = cached.get("*");
  if (!doc) {
    doc = buildOpenApiDocument([...ROUTES.map((r) => withVariant(r, r.previewVariant?.preview)), ...PREVIEW_ROUTES]);
    cached.set("*", doc);
  }
  return doc;
}
