import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenApiDocument } from "@/server/openapi/document";
import {
  describeError as describe,
  DocumentIndex,
  escapePointer as escape,
  relativePath,
  type Json,
} from "./openapi-lookup";

// Only types and Ajv here: the e2e tests load this file in the Playwright process, without the server.

/** One answer as a client saw it. `path` is the request path, with or without `/api/public/v1` and query. */
export interface SeenResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers | Record<string, string>;
  /** Parsed JSON, or null for an empty body. */
  body: unknown;
}

type Operation = Json & { responses: Record<string, Json> };

/** Thrown when an answer does not match the OpenAPI document; the message says what and where. */
export class ResponseMismatch extends Error {
  constructor(seen: SeenResponse, problems: string[]) {
    const body = JSON.stringify(seen.body) ?? "";
    super(
      `${seen.method} ${seen.path} → ${seen.status} does not match the OpenAPI document:\n  - ${problems.join("\n  - ")}\n  body: ${body.slice(0, 600)}`,
    );
    this.name = "ResponseMismatch";
  }
}

/**
 * Checks answers against an OpenAPI document (Ajv, JSON Schema 2020-12): the operation is found by path
 * template and method; the status must be documented; the body must match the media type's schema, with
 * every object closed (`additionalProperties: false` where the document leaves it open) so undocumented
 * fields are caught; documented required headers must be present and match their schema. A problem
 * answer must also carry a code the operation documents (`x-problem-codes`), `status` equal to the HTTP
 * status and `request_id` equal to `X-Request-Id`. Paths or methods the document does not have (unknown
 * or Planned routes) must answer a Problem with 404 or 405 (405 with `Allow`).
 */
export class ResponseValidator {
  private readonly doc: Json;
  private readonly index: DocumentIndex;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument | Json) {
    this.doc = closeObjects(structuredClone(document) as Json) as Json;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(this.doc, "openapi.json");
    this.index = new DocumentIndex(this.doc);
  }

  /**
   * Compiles every answer schema of the document now (bodies and headers), instead of on first use:
   * for tests whose timing matters, where a first compile would stall the event loop mid-burst.
   */
  precompile(): void {
    for (const [template, item] of Object.entries(this.doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op?.responses) continue;
        for (const [status, raw] of Object.entries(op.responses)) {
          const pointer = `#/paths/${escape(template)}/${method}/responses/${status}`;
          const response = this.index.deref(raw);
          for (const type of Object.keys((response.content ?? {}) as Json))
            this.validate(`${pointer}/content/${escape(type)}/schema`, null);
          for (const [name, h] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
            if (this.index.deref(h).schema)
              this.validate(
                typeof h.$ref === "string" ? `${h.$ref}/schema` : `${pointer}/headers/${escape(name)}/schema`,
                "",
              );
          }
        }
      }
    }
  }

  /** @throws ResponseMismatch listing every difference. */
  check(seen: SeenResponse): void {
    const problems = this.differences(seen);
    if (problems.length) throw new ResponseMismatch(seen, problems);
  }

  /** Every difference between the answer and the document (empty when it matches). */
  differences(seen: SeenResponse): string[] {
    const headers = seen.headers instanceof Headers ? seen.headers : new Headers(seen.headers);
    const found = this.index.find(seen.method, seen.path);
    const op = found?.operation as Operation | undefined;
    if (!found || !op) return this.undocumentedRoute(seen, headers, this.index.template(seen.path) !== undefined);

    const pointer = `${found.pointer}/responses`;
    const key = String(seen.status);
    const statusKey =
      key in op.responses
        ? key
        : `${key[0]}XX` in op.responses
          ? `${key[0]}XX`
          : "default" in op.responses
            ? "default"
            : undefined;
    if (!statusKey)
      return [
        `status ${seen.status} is not documented for ${seen.method} ${found.template} (documented: ${Object.keys(op.responses).join(", ")})`,
      ];
    const response = this.index.deref(op.responses[statusKey]);
    const out = this.checkHeaders(response, headers, `${pointer}/${statusKey}`);
    const content = response.content as Record<string, Json> | undefined;
    if (!content) {
      if (seen.body !== null && seen.body !== undefined)
        out.push(`status ${seen.status} documents no body, but one was sent`);
      return out;
    }
    const type = (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!(type in content))
      return [...out, `Content-Type "${type}" is not documented (documented: ${Object.keys(content).join(", ")})`];
    out.push(...this.validate(`${pointer}/${statusKey}/content/${escape(type)}/schema`, seen.body));
    if (type === "application/problem+json") {
      out.push(...problemRules(seen, headers));
      const codes = op["x-problem-codes"] as string[] | undefined;
      const code = (seen.body as Json | null)?.code;
      if (codes && typeof code === "string" && !codes.includes(code))
        out.push(
          `problem code "${code}" is not documented for ${seen.method} ${found.template} (documented: ${codes.join(", ")}); a code the handler answers itself belongs in the route's \`problems\``,
        );
    }
    return out;
  }

  private undocumentedRoute(seen: SeenResponse, headers: Headers, pathKnown: boolean): string[] {
    const out: string[] = [];
    const allowed = pathKnown ? [404, 405] : [404];
    if (!allowed.includes(seen.status))
      out.push(
        `${seen.method} ${relativePath(seen.path)} is not in the document, so only ${allowed.join(" or ")} with a Problem may answer`,
      );
    if (seen.status === 405 && !headers.get("allow")) out.push("405 without an Allow header");
    if ((headers.get("content-type") ?? "").split(";")[0] !== "application/problem+json")
      out.push(`Content-Type is "${headers.get("content-type")}", not application/problem+json`);
    out.push(...this.validate("#/components/schemas/Problem", seen.body), ...problemRules(seen, headers));
    if (!headers.get("x-request-id")) out.push("header X-Request-Id is missing");
    return out;
  }

  private checkHeaders(response: Json, headers: Headers, pointer: string): string[] {
    const out: string[] = [];
    for (const [name, raw] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const h = this.index.deref(raw);
      const value = headers.get(name);
      if (value === null) {
        if (h.required) out.push(`required header ${name} is missing`);
        continue;
      }
      const ref = typeof raw.$ref === "string" ? `${raw.$ref}/schema` : `${pointer}/headers/${escape(name)}/schema`;
      if (h.schema) out.push(...this.validate(ref, value).map((m) => `header ${name}: ${m}`));
    }
    return out;
  }

  private validate(ref: string, value: unknown): string[] {
    let fn = this.compiled.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `openapi.json${ref}` });
      this.compiled.set(ref, fn);
    }
    return fn(value) ? [] : (fn.errors ?? []).slice(0, 10).map(describe);
  }
}

/** `status` equals the HTTP status and `request_id` equals `X-Request-Id` (spec "Problem body"). */
function problemRules(seen: SeenResponse, headers: Headers): string[] {
  const b = seen.body as Json | null;
  const out: string[] = [];
  if (b?.status !== seen.status) out.push(`problem status ${String(b?.status)} differs from HTTP ${seen.status}`);
  if (b?.request_id !== headers.get("x-request-id"))
    out.push(`problem request_id ${String(b?.request_id)} differs from X-Request-Id ${headers.get("x-request-id")}`);
  return out;
}

/**
 * Closes every object schema that lists `properties` and leaves `additionalProperties` unset, except
 * inside `allOf` (where closing one part would refuse the other parts' fields) and in request bodies.
 */
function closeObjects(node: unknown, parentKey = ""): unknown {
  if (Array.isArray(node)) return node.map((n) => closeObjects(n, parentKey));
  if (!node || typeof node !== "object") return node;
  const o = node as Json;
  for (const [k, v] of Object.entries(o)) {
    if (k === "requestBody" || k === "parameters" || k === "webhooks") continue;
    o[k] = closeObjects(v, k);
  }
  if (parentKey !== "allOf" && o.type === "object" && o.properties && !("additionalProperties" in o))
    o.additionalProperties = false;
  return o;
}
