import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/openapi/document";
import { RequestMismatch, RequestValidator } from "./request-validator";
import { parameterCandidates } from "./parameter-values";

const auth = { authorization: "Bearer sk_test_ru_x" };
const json = { ...auth, "content-type": "application/json" };
const card = { code: "socks", name: "Wool socks" };
const hookId = "0b9b6f43-64f1-4c4e-9a57-3a8a4c1ed5aa";

describe("the request validator on the served document", () => {
  const v = new RequestValidator(openApiDocument());

  it("accepts requests the API accepts", () => {
    expect(
      v.differences({ method: "GET", path: "/api/public/v1/cards?limit=5&ai_enabled=true", headers: auth }),
    ).toEqual([]);
    expect(
      v.differences({
        method: "POST",
        path: "/cards",
        headers: { ...json, "idempotency-key": "k-1" },
        body: { json: card },
      }),
    ).toEqual([]);
    expect(
      v.differences({
        method: "POST",
        path: "/cards",
        headers: { ...json, "idempotency-key": "k-1" },
        body: { text: JSON.stringify(card) },
      }),
    ).toEqual([]);
    expect(v.differences({ method: "GET", path: `/webhooks/${hookId}/deliveries?state=dead`, headers: auth })).toEqual(
      [],
    );
    expect(
      v.differences({ method: "DELETE", path: "/cards/socks", headers: { ...auth, "idempotency-key": "ignored" } }),
    ).toEqual([]);
  });

  it("lets every PATCH go without an Idempotency-Key (spec: accepted on POST and PATCH, required where an endpoint says so)", () => {
    expect(
      v.differences({ method: "PATCH", path: "/cards/socks", headers: json, body: { json: { badge: "Warm" } } }),
    ).toEqual([]);
    expect(
      v.differences({
        method: "PATCH",
        path: `/webhooks/${hookId}`,
        headers: json,
        body: { json: { status: "paused" } },
      }),
    ).toEqual([]);
  });

  it("refuses a missing required header, a bad header value, a bad parameter and a missing bearer", () => {
    expect(v.differences({ method: "POST", path: "/cards", headers: json, body: { json: card } })).toEqual([
      "required header parameter Idempotency-Key is missing",
    ]);
    expect(
      v
        .differences({
          method: "POST",
          path: "/cards",
          headers: { ...json, "idempotency-key": "a b" },
          body: { json: card },
        })
        .join(),
    ).toMatch(/header parameter Idempotency-Key: must match pattern/);
    expect(v.differences({ method: "GET", path: "/cards?limit=five", headers: auth }).join()).toMatch(
      /query parameter limit: must be integer \(value "five"\)/,
    );
    expect(v.differences({ method: "GET", path: "/cards?limit=5&limit=6", headers: auth }).join()).toMatch(
      /query parameter limit: must be integer \(value \["5","6"\]\)/,
    );
    expect(v.differences({ method: "GET", path: "/cards/Not%20A%20Code", headers: auth }).join()).toMatch(
      /path parameter code: must match pattern .* \(value "Not A Code"\)/,
    );
    expect(v.differences({ method: "GET", path: "/cards", headers: {} })).toEqual([
      "security: ApiKey needs Authorization: Bearer <credentials>",
    ]);
    expect(v.differences({ method: "GET", path: "/cards", headers: { authorization: "Basic eDp5" } }).join()).toMatch(
      /Bearer/,
    );
  });

  it("refuses a body outside the schema, a missing required body, an undocumented media type", () => {
    const post = (headers: Record<string, string>, body?: { json: unknown } | { text: string }) =>
      v
        .differences({ method: "POST", path: "/cards", headers: { ...headers, "idempotency-key": "k" }, body })
        .join("\n");
    expect(post(json, { json: { code: "socks" } })).toMatch(/body \(root\): must have required property 'name'/);
    expect(post(json, { json: { ...card, colour: "red" } })).toMatch(/body \(root\): field "colour" is not documented/);
    expect(post(json)).toMatch(/a request body is required/);
    expect(post({ ...auth, "content-type": "text/plain" }, { text: "hi" })).toMatch(
      /Content-Type "text\/plain" is not documented/,
    );
    expect(post(json, { text: "{oops" })).toMatch(/not JSON/);
    // Where no body is declared, one sent is not described, not refused (the API ignores a small one).
    expect(v.differences({ method: "DELETE", path: "/cards/socks", headers: json, body: { json: {} } })).toEqual([]);
  });

  it("names an operation the document lacks, and throws a readable RequestMismatch", () => {
    expect(v.differences({ method: "POST", path: "/conversations", headers: auth })).toEqual([
      "POST /conversations is not an operation of the document",
    ]);
    expect(() => v.check({ method: "GET", path: "/cards?limit=x", headers: auth }, 200)).toThrow(RequestMismatch);
    expect(() => v.check({ method: "GET", path: "/cards?limit=x", headers: auth }, 200)).toThrow(
      /GET \/cards\?limit=x was answered 200, but the OpenAPI document refuses this request/,
    );
  });
});

describe("the request validator reads parameters the way OpenAPI serializes them", () => {
  const param = (name: string, where: string, schema: object, extra: object = {}) => ({
    name,
    in: where,
    schema,
    ...extra,
  });
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/items/{n}": {
        parameters: [param("n", "path", { type: "integer", minimum: 1 }, { required: true })],
        get: {
          parameters: [
            param("limit", "query", { type: "integer", minimum: 1, maximum: 100 }),
            param("flag", "query", { type: "boolean" }),
            param("ids", "query", { type: "array", items: { type: "integer" } }),
            param("tags", "query", { type: "array", items: { type: "string" } }, { explode: false }),
            param("either", "query", { anyOf: [{ type: "integer" }, { type: "string", enum: ["all"] }] }),
            param("X-Count", "header", { type: "integer" }, { required: true }),
            param("Content-Type", "header", { type: "string", const: "never" }, { required: true }),
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  };
  const v = new RequestValidator(doc);
  const h = { "x-count": "3" };

  it("coerces query, path and header text to the declared integer, boolean and array types", () => {
    expect(
      v.differences({
        method: "GET",
        path: "/items/7?limit=25&flag=false&ids=1&ids=2&tags=a,b&either=all",
        headers: h,
      }),
    ).toEqual([]);
    expect(v.differences({ method: "GET", path: "/items/7?either=12", headers: h })).toEqual([]);
    expect(v.differences({ method: "GET", path: "/items/7?limit=0", headers: h }).join()).toMatch(
      /query parameter limit: must be >= 1 \(value 0\)/,
    );
    expect(v.differences({ method: "GET", path: "/items/7?limit=ten", headers: h }).join()).toMatch(
      /query parameter limit: must be integer \(value "ten"\)/,
    );
    expect(v.differences({ method: "GET", path: "/items/7?limit=2.5", headers: h }).join()).toMatch(
      /limit: must be integer \(value 2.5\)/,
    );
    expect(v.differences({ method: "GET", path: "/items/7?flag=yes", headers: h }).join()).toMatch(
      /flag: must be boolean/,
    );
    expect(v.differences({ method: "GET", path: "/items/7?ids=1&ids=x", headers: h }).join()).toMatch(
      /ids: \/1: must be integer/,
    );
    expect(v.differences({ method: "GET", path: "/items/0", headers: h }).join()).toMatch(
      /path parameter n: must be >= 1/,
    );
    expect(v.differences({ method: "GET", path: "/items/7", headers: { "x-count": "many" } }).join()).toMatch(
      /header parameter X-Count: must be integer/,
    );
    expect(v.differences({ method: "GET", path: "/items/7", headers: {} })).toEqual([
      "required header parameter X-Count is missing",
    ]);
  });

  it("reads both declarations of limit: text with a pattern and integer", () => {
    const text = { type: "string", pattern: "^\\d+$" };
    expect(parameterCandidates({ name: "limit", in: "query" }, text, { in: "query", values: ["5"] })).toEqual(["5"]);
    expect(
      parameterCandidates({ name: "limit", in: "query" }, { type: "integer" }, { in: "query", values: ["5"] }),
    ).toEqual([5]);
    expect(
      parameterCandidates({ name: "x", in: "query" }, { type: "object" }, { in: "query", values: ["a"] }),
    ).toHaveProperty("error");
  });
});
