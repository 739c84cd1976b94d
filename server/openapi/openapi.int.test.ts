import { validate } from "@readme/openapi-parser";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { GET as serveAsset } from "@/app/docs/api/assets/[file]/route";
import { ApiReference } from "@/app/docs/api/api-reference";
import { ERROR_CATALOG } from "@/server/errors";
import { idempotencyMode, type AnyRoute } from "@/server/public-api/define-route";
import { ROUTES } from "@/server/public-api/routes";
import { PLANNED_ROUTES } from "@/server/public-api/routes/planned";
import { EVENT_TYPES } from "@/server/webhook-transport/event-catalog";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { RequestMismatch, RequestValidator } from "@/server/testing/request-validator";
import { ResponseMismatch, ResponseValidator } from "@/server/testing/response-validator";
import { openTestDatabase } from "@/server/testing/test-db";
import { buildOpenApiDocument, openApiDocument } from "./document";
import { problemCodes } from "./problem-codes";
import { ASSET_FILES } from "./reference-assets";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = openApiDocument() as Json;
const op = (r: { method: string; path: string }): Json | undefined => doc.paths[r.path]?.[r.method.toLowerCase()];

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });

  it("has every route of the table with its method, path and operationId, and nothing else", () => {
    for (const r of ROUTES) expect(op(r)?.operationId, `${r.method} ${r.path}`).toBe(r.operationId);
    const documented = Object.entries(doc.paths as Json).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it("has no Planned route", () => {
    for (const p of PLANNED_ROUTES) expect(op(p), `${p.method} ${p.path}`).toBeUndefined();
  });

  it("lists each operation's scope on the bearer requirement and in x-scope", () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: "http", scheme: "bearer" });
    for (const r of ROUTES) {
      expect(op(r)!.security).toEqual([{ ApiKey: r.scope ? [r.scope] : [] }]);
      expect(op(r)!["x-scope"]).toBe(r.scope);
    }
    expect(op({ method: "GET", path: "/cards" })!.security).toEqual([{ ApiKey: ["cards:read"] }]);
    expect(op({ method: "GET", path: "/me" })!.security).toEqual([{ ApiKey: [] }]);
  });

  it("documents, per route, a problem answer with an example for every code the route can give", () => {
    for (const r of ROUTES) {
      const o = op(r)!;
      for (const code of problemCodes(r)) {
        const status = String(ERROR_CATALOG[code].status);
        const media = o.responses[status]?.content?.["application/problem+json"];
        expect(media?.schema, `${r.operationId} ${status}`).toEqual({ $ref: "#/components/schemas/Problem" });
        expect(media.examples[code].value).toMatchObject({ code, status: Number(status) });
      }
    }
  });

  it("derives the codes from the declaration", () => {
    const byId = (id: string) => ROUTES.find((r) => r.operationId === id)!;
    const me = problemCodes(byId("getMe"));
    expect(me).toEqual(
      expect.arrayContaining([
        "invalid_api_key",
        "wrong_cell",
        "integration_inactive",
        "tenant_inactive",
        "ip_not_allowed",
        "feature_not_in_plan",
        "rate_limited",
        "service_unavailable",
        "internal_error",
      ]),
    );
    expect(me).not.toContain("wallet_suspended");
    expect(me).not.toContain("scope_missing");
    expect(problemCodes(byId("listCards"))).toEqual(
      expect.arrayContaining(["wallet_suspended", "scope_missing", "validation_failed"]),
    );
    expect(problemCodes(byId("listCards"))).not.toContain("not_found");
    expect(problemCodes(byId("createCard"))).toEqual(
      expect.arrayContaining([
        "idempotency_key_required",
        "idempotency_conflict",
        "operation_in_progress",
        "bad_request",
        "payload_too_large",
      ]),
    );
    expect(problemCodes(byId("getCard"))).toContain("not_found");
    expect(problemCodes(byId("deleteCard"))).not.toContain("idempotency_conflict");
    const pii: AnyRoute = { ...byId("getCard"), pii: true, rate: "paid", problems: ["invalid_state"] };
    expect(problemCodes(pii)).toEqual(
      expect.arrayContaining([
        "pii_transfer_not_allowed",
        "upstream_unavailable",
        "insufficient_funds",
        "spend_limit_reached",
        "invalid_state",
      ]),
    );
    expect(problemCodes(byId("getCard"))).not.toContain("pii_transfer_not_allowed");
  });

  it("documents the common headers: X-Request-Id and RateLimit-* on success, Retry-After on 429 and 503, Idempotency-Key on writes", () => {
    const list = op({ method: "GET", path: "/cards" })!;
    expect(Object.keys(list.responses["200"].headers)).toEqual(
      expect.arrayContaining(["X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]),
    );
    expect(doc.components.headers["X-Request-Id"].required).toBe(true);
    expect(list.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(list.responses["503"].headers["Retry-After"]).toBeDefined();
    expect(list.responses["404"]).toBeUndefined();
    const create = op({ method: "POST", path: "/cards" })!;
    expect(create.parameters).toContainEqual({ $ref: "#/components/parameters/IdempotencyKeyRequired" });
    expect(doc.components.parameters.IdempotencyKeyRequired).toMatchObject({
      in: "header",
      name: "Idempotency-Key",
      required: true,
    });
    expect(op({ method: "PATCH", path: "/cards/{code}" })!.parameters).toContainEqual({
      $ref: "#/components/parameters/IdempotencyKey",
    });
    expect(create.requestBody.content["application/json"].schema.required).toEqual(["code", "name"]);
  });

  it("declares Idempotency-Key required only where the route requires it: optional on every other POST and PATCH, absent on reads, PUT and DELETE", () => {
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ in: "header", name: "Idempotency-Key" });
    expect(doc.components.parameters.IdempotencyKey.required).toBeUndefined();
    const idem = (o: Json) => (o.parameters ?? []).find((p: Json) => p.$ref?.includes("Idempotency"))?.$ref;
    for (const r of ROUTES) {
      const expected =
        r.idempotency === "required"
          ? "#/components/parameters/IdempotencyKeyRequired"
          : r.method === "POST" || r.method === "PATCH"
            ? "#/components/parameters/IdempotencyKey"
            : undefined;
      expect(idem(op(r)!), `${r.method} ${r.path}`).toBe(expected);
    }
    for (const r of ROUTES.filter((x) => x.method === "PATCH"))
      expect(idem(op(r)!), `${r.method} ${r.path}`).toBe("#/components/parameters/IdempotencyKey");
  });

  it("documents Idempotent-Replayed on the success answers of every route that honours Idempotency-Key, and nowhere else (issue 75 item 6)", () => {
    for (const r of ROUTES) {
      const o = op(r)!;
      const honours = idempotencyMode(r) !== "none";
      for (const [status, answer] of Object.entries(o.responses as Record<string, Json>)) {
        const h = answer.headers?.["Idempotent-Replayed"];
        if (honours && Number(status) < 300) {
          expect(h, `${r.method} ${r.path} ${status}`).toMatchObject({ schema: { type: "string", const: "true" } });
          expect(h.required, `${r.method} ${r.path} ${status}`).toBeUndefined();
        } else expect(h, `${r.method} ${r.path} ${status}`).toBeUndefined();
      }
    }
  });

  it("shows a route's Cache-Control and deprecation headers when it declares them", () => {
    const base = ROUTES.find((r) => r.operationId === "getCard")!;
    const d = buildOpenApiDocument([
      { ...base, cacheControl: "no-store", deprecation: { deprecatedAt: new Date(0), sunsetAt: new Date(1e12) } },
    ]) as Json;
    const o = d.paths["/cards/{code}"].get;
    expect(o.deprecated).toBe(true);
    expect(Object.keys(o.responses["200"].headers)).toEqual(
      expect.arrayContaining(["Cache-Control", "Deprecation", "Sunset"]),
    );
  });

  it("declares limit as an integer with its bounds and default, and boolean filters as booleans", () => {
    const params = op({ method: "GET", path: "/cards" })!.parameters as Json[];
    const limit = params.find((p) => p.name === "limit");
    expect(limit).toEqual({
      in: "query",
      name: "limit",
      schema: { type: "integer", minimum: 1, maximum: 100, default: 50 },
    });
    expect(params.find((p) => p.name === "ai_enabled")).toEqual({
      in: "query",
      name: "ai_enabled",
      schema: { type: "boolean" },
    });
    // Every list route: limit 1-100 as an integer (default 25 except cards), never the text pattern it is parsed with.
    const lists = Object.entries(doc.paths as Record<string, Json>).filter(([, item]) =>
      item.get?.parameters?.some((p: Json) => p.name === "limit"),
    );
    expect(lists.map(([path]) => path).sort()).toEqual([
      "/articles",
      "/cards",
      "/conversations",
      "/conversations/{id}/messages",
      "/events",
      "/leads",
      "/strategist/actions",
      "/strategist/reports",
      "/strategist/topics",
      "/webhooks",
      "/webhooks/{id}/deliveries",
    ]);
    for (const [path, item] of lists) {
      const l = item.get.parameters.find((p: Json) => p.name === "limit");
      expect(l.schema, path).toEqual({
        type: "integer",
        minimum: 1,
        maximum: 100,
        default: path === "/cards" ? 50 : 25,
      });
    }
    const messages = op({ method: "GET", path: "/conversations/{id}/messages" })!.parameters.find(
      (p: Json) => p.name === "include_deleted",
    );
    expect(messages.schema).toMatchObject({ type: "boolean", default: false });
    expect(messages.schema.enum).toBeUndefined();
  });

  it("names the route whose schema cannot be rendered", () => {
    const base = ROUTES.find((r) => r.operationId === "getCard")!;
    const broken: AnyRoute = {
      ...base,
      operationId: "brokenRoute",
      responses: { 200: z.object({ n: z.string().transform(Number) }) },
    };
    expect(() => buildOpenApiDocument([ROUTES[0], broken])).toThrow(/brokenRoute \(GET \/cards\/\{code\}\)/);
  });

  it("has every event type of the catalog in webhooks, with the envelope and the signature headers", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const lead = doc.webhooks["lead.created"].post;
    expect(lead.parameters.map((p: Json) => p.name)).toEqual([
      "Service-Event-Id",
      "Service-Event-Type",
      "Service-Signature",
    ]);
    const body = lead.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["id", "type", "api_version", "created_at", "livemode", "data"]);
    expect(body.properties.type.const).toBe("lead.created");
    expect(Object.keys(body.properties.data.properties)).toEqual(
      expect.arrayContaining(["lead_id", "contact_id", "conversation_id", "version"]),
    );
  });
});

describe("the response validator", () => {
  const v = new ResponseValidator(doc);
  const ok = {
    "x-request-id": "req_1",
    "ratelimit-limit": "600",
    "ratelimit-remaining": "599",
    "ratelimit-reset": "10",
    "content-type": "application/json",
  };
  const wallet = {
    balance: { amount: "10.00", currency: "RUB" },
    state: "ok",
    exchange: "active",
    topup_url: "https://x.example/top",
    daily_spend: null,
  };
  const problem = (code: keyof typeof ERROR_CATALOG) => ({
    type: "t",
    title: ERROR_CATALOG[code].title,
    status: ERROR_CATALOG[code].status,
    code,
    detail: "d",
    request_id: "req_1",
  });
  const pj = { ...ok, "content-type": "application/problem+json" };

  it("accepts a matching answer", () => {
    expect(
      v.differences({ method: "GET", path: "/api/public/v1/wallet?x=1", status: 200, headers: ok, body: wallet }),
    ).toEqual([]);
  });

  it("catches a wrong body, an undocumented field, a missing header, an undocumented status and code", () => {
    expect(
      v
        .differences({ method: "GET", path: "/wallet", status: 200, headers: ok, body: { ...wallet, state: "rich" } })
        .join(),
    ).toMatch(/\/state/);
    expect(
      v
        .differences({ method: "GET", path: "/wallet", status: 200, headers: ok, body: { ...wallet, secret: 1 } })
        .join(),
    ).toMatch(/"secret" is not documented/);
    const { "x-request-id": _, ...noId } = ok;
    expect(v.differences({ method: "GET", path: "/wallet", status: 200, headers: noId, body: wallet }).join()).toMatch(
      /X-Request-Id is missing/,
    );
    expect(
      v
        .differences({ method: "GET", path: "/wallet", status: 409, headers: pj, body: problem("invalid_state") })
        .join(),
    ).toMatch(/status 409 is not documented/);
    expect(
      v
        .differences({
          method: "GET",
          path: "/cards",
          status: 403,
          headers: pj,
          body: problem("pii_transfer_not_allowed"),
        })
        .join(),
    ).toMatch(/pii_transfer_not_allowed" is not documented/);
    expect(
      v.differences({ method: "GET", path: "/cards", status: 429, headers: pj, body: problem("rate_limited") }).join(),
    ).toMatch(/Retry-After is missing/);
    expect(
      v
        .differences({
          method: "GET",
          path: "/cards",
          status: 200,
          headers: { ...ok, "content-type": "text/html" },
          body: null,
        })
        .join(),
    ).toMatch(/Content-Type "text\/html"/);
    expect(
      v.differences({ method: "DELETE", path: "/cards/x", status: 204, headers: ok, body: { a: 1 } }).join(),
    ).toMatch(/documents no body/);
    expect(
      v
        .differences({
          method: "GET",
          path: "/cards",
          status: 401,
          headers: { ...pj, "x-request-id": "req_2" },
          body: problem("invalid_api_key"),
        })
        .join(),
    ).toMatch(/request_id/);
  });

  it("accepts only a 404/405 problem for unknown paths and Planned routes", () => {
    expect(
      v.differences({ method: "GET", path: "/nope", status: 404, headers: pj, body: problem("not_found") }),
    ).toEqual([]);
    expect(
      v.differences({ method: "POST", path: "/conversations", status: 404, headers: pj, body: problem("not_found") }),
    ).toEqual([]);
    expect(
      v.differences({
        method: "PUT",
        path: "/cards",
        status: 405,
        headers: { ...pj, allow: "GET, POST" },
        body: problem("method_not_allowed"),
      }),
    ).toEqual([]);
    expect(
      v
        .differences({ method: "PUT", path: "/cards", status: 405, headers: pj, body: problem("method_not_allowed") })
        .join(),
    ).toMatch(/Allow/);
    expect(v.differences({ method: "GET", path: "/nope", status: 200, headers: ok, body: {} }).length).toBeGreaterThan(
      0,
    );
  });

  it("throws a readable ResponseMismatch", () => {
    expect(() => v.check({ method: "GET", path: "/wallet", status: 200, headers: ok, body: {} })).toThrow(
      ResponseMismatch,
    );
    expect(() => v.check({ method: "GET", path: "/wallet", status: 200, headers: ok, body: {} })).toThrow(
      /GET \/wallet → 200 does not match the OpenAPI document/,
    );
  });
});

describe("served over HTTP", () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TenantFixture;
  beforeAll(async () => {
    db = await openTestDatabase();
    t = await makeTenant(db.db);
  });
  afterAll(async () => db.drop());

  it("still parses the query text: limit 1-100 digits only, booleans exactly true or false, with JSON Pointers", async () => {
    const ok = await call("GET", "/cards?limit=1&ai_enabled=false", { key: t.key });
    expect(ok.status).toBe(200);
    for (const [q, field, code] of [
      ["limit=0", "/limit", "out_of_range"],
      ["limit=101", "/limit", "out_of_range"],
      ["limit=1e2", "/limit", "invalid_format"],
      ["limit=5.0", "/limit", "invalid_format"],
      ["limit=", "/limit", "invalid_format"],
      ["ai_enabled=1", "/ai_enabled", "invalid_value"],
      ["ai_enabled=TRUE", "/ai_enabled", "invalid_value"],
    ] as const) {
      const r = await call("GET", `/cards?${q}`, { key: t.key });
      expect(r.status, q).toBe(422);
      expect(r.body.errors, q).toEqual([expect.objectContaining({ field, code })]);
    }
  });

  it("answers the document at /api/public/v1/openapi.json without a key, with an ETag", async () => {
    const r = serveDocument(new Request("https://api.example.ru/api/public/v1/openapi.json"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await r.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    const again = serveDocument(
      new Request("https://api.example.ru/api/public/v1/openapi.json", {
        headers: { "if-none-match": r.headers.get("etag")! },
      }),
    );
    expect(again.status).toBe(304);
  });

  it("validates every answer of call() against the document", async () => {
    const spy = vi.spyOn(ResponseValidator.prototype, "check");
    const me = await call("GET", "/me", { key: t.key });
    expect(me.status).toBe(200);
    expect(spy).toHaveBeenCalledWith(
      expect.objectContaining({ method: "GET", path: "/me", status: 200, body: me.body }),
    );
    spy.mockImplementationOnce(() => {
      throw new ResponseMismatch({ method: "GET", path: "/me", status: 200, headers: {}, body: null }, ["planted"]);
    });
    await expect(call("GET", "/me", { key: t.key })).rejects.toThrow(/planted/);
    spy.mockRestore();
    await expect(call("GET", "/cards?limit=0", { key: t.key })).resolves.toMatchObject({ status: 422 });
    await expect(call("POST", "/conversations", { key: t.key, json: {} })).resolves.toMatchObject({ status: 404 });
  });

  it("validates every request call() got a 2xx for against the document's request side, and no refused one", async () => {
    const spy = vi.spyOn(RequestValidator.prototype, "check");
    const made = await call("POST", "/cards", {
      key: t.key,
      idempotencyKey: "doc-check-1",
      json: { code: "doc-check", name: "Doc check" },
    });
    expect(made.status).toBe(201);
    expect(spy).toHaveBeenCalledTimes(1);
    const [sent, status] = spy.mock.calls[0];
    expect(status).toBe(201);
    expect(sent).toMatchObject({
      method: "POST",
      path: "/cards",
      body: { json: { code: "doc-check", name: "Doc check" } },
    });
    expect(new Headers(sent.headers).get("idempotency-key")).toBe("doc-check-1");
    await call("POST", "/cards", { key: t.key, json: { code: "doc-check-2", name: "No key" } }); // 400: refused, not checked
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockImplementationOnce(() => {
      throw new RequestMismatch({ method: "PATCH", path: "/cards/doc-check", headers: {} }, 200, ["planted"]);
    });
    await expect(call("PATCH", "/cards/doc-check", { key: t.key, json: { badge: "Hit" } })).rejects.toThrow(/planted/);
    spy.mockRestore();
    await expect(call("PATCH", "/cards/doc-check", { key: t.key, json: { badge: "Hit" } })).resolves.toMatchObject({
      status: 200,
    });
  });

  it("serves the reference page and its assets from the app, with the right content types", async () => {
    // The page itself only adds the response's CSP nonce (app/docs/api/page.tsx); its scripts carry it.
    const html = renderToStaticMarkup(ApiReference({ nonce: "bm9uY2Utb2YtdGhpcw==" }));
    expect(html).toContain('id="swagger-ui"');
    const scripts = [...html.matchAll(/<script [^>]*>/g)].map((m) => m[0]);
    expect(scripts).toHaveLength(2);
    for (const tag of scripts) expect(tag).toContain('nonce="bm9uY2Utb2YtdGhpcw=="');
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1])
      .filter((u) => u.startsWith("/docs/api/assets/"));
    expect(srcs).toEqual(
      expect.arrayContaining([
        "/docs/api/assets/swagger-ui.css",
        "/docs/api/assets/swagger-ui-bundle.js",
        "/docs/api/assets/init.js",
      ]),
    );
    expect(html).not.toMatch(/https?:\/\//); // nothing from another origin: it works offline
    const get = (file: string) =>
      serveAsset(new Request(`https://x/docs/api/assets/${file}`), { params: Promise.resolve({ file }) });
    for (const u of srcs) expect(ASSET_FILES).toContain(u.split("/").pop());
    const css = await get("swagger-ui.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect((await css.text()).length).toBeGreaterThan(1000);
    const js = await get("swagger-ui-bundle.js");
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await (await get("init.js")).text()).toContain('"/api/public/v1/openapi.json"');
    expect((await get("favicon-32x32.png")).headers.get("content-type")).toBe("image/png");
    for (const bad of ["package.json", "..%2Fpackage.json", "../../package.json", "index.html"])
      expect((await get(bad)).status).toBe(404);
  });
});
