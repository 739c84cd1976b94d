import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenApiDocument } from "@/server/openapi/document";
import { describeError, DocumentIndex, escapePointer, type Json, type OperationMatch } from "./openapi-lookup";
import { parameterCandidates, type RawParameter } from "./parameter-values";

// Only types and Ajv here: the e2e tests load this file in the Playwright process, without the server.

/** One request as a client sent it. `path` is the request path, with or without origin, `/api/public/v1` and query. */
export interface SentRequest {
  method: string;
  path: string;
  headers: Headers | Record<string, string>;
  /** The body: parsed JSON, or text as sent; absent when none was sent. */
  body?: { json: unknown } | { text: string };
}

/** Thrown when a request the API accepted is one the OpenAPI document refuses; the message says what and where. */
export class RequestMismatch extends Error {
  constructor(sent: SentRequest, status: number, problems: string[]) {
    super(
      `${sent.method} ${sent.path} was answered ${status}, but the OpenAPI document refuses this request (what the API accepts, the document must allow):\n  - ${problems.join("\n  - ")}`,
    );
    this.name = "RequestMismatch";
  }
}

/** OpenAPI 3.1 §4.8.12.1: header parameters with these names are ignored (Content-Type comes from the body, Authorization from `security`). */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

/**
 * Checks requests against an OpenAPI document (Ajv, JSON Schema 2020-12): the operation is found by path
 * template and method; every declared path, query and header parameter (path-item and operation level)
 * must be present when required and its value, read the way OpenAPI parameter serialization defines
 * (server/testing/parameter-values.ts), must match its schema; the operation's security requirement
 * must be met (a Bearer `Authorization` for http bearer); a body must have a documented Content-Type and
 * match its schema, and a required body must be sent (a body sent where no `requestBody` is declared is
 * left alone: OpenAPI does not describe it, and the API ignores it).
 * Schemas are used as published (open objects stay open: a request may not be held to more than the
 * document says).
 */
export class RequestValidator {
  private readonly index: DocumentIndex;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument | Json) {
    const doc = structuredClone(document) as Json;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, "openapi.json");
    this.index = new DocumentIndex(doc);
  }

  /**
   * Compiles every request schema of the document now (parameters and bodies), instead of on first use:
   * for tests whose timing matters, where a first compile would stall the event loop mid-burst.
   */
  precompile(): void {
    for (const template of Object.keys(this.index.doc.paths as Json)) {
      for (const method of Object.keys((this.index.doc.paths as Record<string, Json>)[template])) {
        const found = this.index.find(method, template);
        if (!found?.operation.responses) continue;
        for (const { param, pointer } of this.declaredParameters(found))
          if (param.schema) this.validate(`${pointer}/schema`, "");
        const body = found.operation.requestBody as Json | undefined;
        if (!body) continue;
        const base = typeof body.$ref === "string" ? finalRef(this.index, body) : `${found.pointer}/requestBody`;
        for (const media of Object.keys((this.index.deref(body).content ?? {}) as Json))
          this.validate(`${base}/content/${escapePointer(media)}/schema`, null);
      }
    }
  }

  /** @throws RequestMismatch listing every difference; `status` is the answer's, for the message. */
  check(sent: SentRequest, status: number): void {
    const problems = this.differences(sent);
    if (problems.length) throw new RequestMismatch(sent, status, problems);
  }

  /** Every way the request differs from the document (empty when the document allows it). */
  differences(sent: SentRequest): string[] {
    const found = this.index.find(sent.method, sent.path);
    if (!found) return [`${sent.method} ${sent.path.split("?")[0]} is not an operation of the document`];
    const headers = sent.headers instanceof Headers ? sent.headers : new Headers(sent.headers);
    return [
      ...this.parameters(found, sent, headers),
      ...this.security(found, headers),
      ...this.body(found, sent, headers),
    ];
  }

  private parameters(found: OperationMatch, sent: SentRequest, headers: Headers): string[] {
    const out: string[] = [];
    const query = new URL(sent.path, "http://x").searchParams;
    for (const { param, pointer } of this.declaredParameters(found)) {
      const where = param.in as string;
      const name = String(param.name);
      if (where === "cookie" || (where === "header" && IGNORED_HEADERS.has(name.toLowerCase()))) continue;
      const raw = rawParameter(where, name, found, query, headers);
      if (raw === "bad-encoding") {
        out.push(`path parameter ${name}: not valid percent-encoding`);
        continue;
      }
      if (!raw) {
        if (param.required) out.push(`required ${where} parameter ${name} is missing`);
        continue;
      }
      if (!param.schema) {
        out.push(
          `${where} parameter ${name}: parameters described by \`content\` are not checked by the test validator`,
        );
        continue;
      }
      const candidates = parameterCandidates(param, this.index.deref(param.schema as Json), raw);
      if ("error" in candidates) {
        out.push(`${where} parameter ${name}: ${candidates.error}`);
        continue;
      }
      let errors: string[] = [];
      for (const value of candidates) {
        const e = this.validate(`${pointer}/schema`, value);
        if (!e.length) {
          errors = [];
          break;
        }
        if (!errors.length) errors = e.map((m) => `${m} (value ${JSON.stringify(value)})`);
      }
      out.push(...errors.map((m) => `${where} parameter ${name}: ${m.replace(/^\(root\): /, "")}`));
    }
    return out;
  }

  /** Path-item parameters, overridden by operation parameters of the same `in` and `name` (OpenAPI 3.1 §4.8.9.1). */
  private declaredParameters(found: OperationMatch): { param: Json; pointer: string }[] {
    const byKey = new Map<string, { param: Json; pointer: string }>();
    const itemPointer = found.pointer.slice(0, found.pointer.lastIndexOf("/"));
    const lists: [unknown, string][] = [
      [found.pathItem.parameters, `${itemPointer}/parameters`],
      [found.operation.parameters, `${found.pointer}/parameters`],
    ];
    for (const [list, base] of lists) {
      ((list as Json[] | undefined) ?? []).forEach((p, i) => {
        const pointer = typeof p.$ref === "string" ? finalRef(this.index, p) : `${base}/${i}`;
        const param = this.index.deref(p);
        byKey.set(`${String(param.in)} ${String(param.name).toLowerCase()}`, { param, pointer });
      });
    }
    return [...byKey.values()];
  }

  private security(found: OperationMatch, headers: Headers): string[] {
    const requirements = (found.operation.security ?? this.index.doc.security) as
      Record<string, string[]>[] | undefined;
    if (!requirements?.length) return [];
    const schemes = ((this.index.doc.components as Json | undefined)?.securitySchemes ?? {}) as Record<string, Json>;
    const unmet = requirements.map((req) =>
      Object.keys(req).flatMap((name) =>
        schemeUnmet(name, schemes[name] ? this.index.deref(schemes[name]) : undefined, headers),
      ),
    );
    return unmet.some((u) => u.length === 0) ? [] : [`security: ${unmet.map((u) => u.join(" and ")).join("; or ")}`];
  }

  private body(found: OperationMatch, sent: SentRequest, headers: Headers): string[] {
    const declared = found.operation.requestBody ? this.index.deref(found.operation.requestBody as Json) : undefined;
    if (!sent.body) return declared?.required ? ["a request body is required, none was sent"] : [];
    // No `requestBody`: OpenAPI describes no body, it does not forbid one; the pipeline ignores a body
    // under the size limit on such routes (server/public-api/body-limit.int.test.ts), and so does Prism.
    if (!declared) return [];
    const type = (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    const content = (declared.content ?? {}) as Record<string, Json>;
    const media = Object.keys(content).find((range) => mediaMatches(range, type));
    if (!media)
      return [`Content-Type "${type}" is not documented for the body (documented: ${Object.keys(content).join(", ")})`];
    if (!content[media].schema) return [];
    let value: unknown;
    if ("json" in sent.body) value = sent.body.json;
    else if (/[/+]json$/.test(media)) {
      try {
        value = JSON.parse(sent.body.text);
      } catch {
        return [`the body is not JSON, but the documented media type is ${media}`];
      }
    } else value = sent.body.text;
    const base =
      typeof (found.operation.requestBody as Json).$ref === "string"
        ? finalRef(this.index, found.operation.requestBody as Json)
        : `${found.pointer}/requestBody`;
    return this.validate(`${base}/content/${escapePointer(media)}/schema`, value).map((m) => `body ${m}`);
  }

  private validate(ref: string, value: unknown): string[] {
    let fn = this.compiled.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `openapi.json${ref}` });
      this.compiled.set(ref, fn);
    }
    return fn(value) ? [] : (fn.errors ?? []).slice(0, 10).map(describeError);
  }
}

function rawParameter(
  where: string,
  name: string,
  found: OperationMatch,
  query: URLSearchParams,
  headers: Headers,
): RawParameter | "bad-encoding" | undefined {
  if (where === "query") {
    const values = query.getAll(name);
    return values.length ? { in: "query", values } : undefined;
  }
  if (where === "header") {
    const value = headers.get(name);
    return value === null ? undefined : { in: "header", value };
  }
  const encoded = found.pathParams[name];
  if (encoded === undefined) return undefined;
  try {
    return { in: "path", value: decodeURIComponent(encoded) };
  } catch {
    return "bad-encoding";
  }
}

/** Why a request does not meet one security scheme (empty when it does). */
function schemeUnmet(name: string, scheme: Json | undefined, headers: Headers): string[] {
  if (!scheme) return [`scheme ${name} is not declared`];
  if (scheme.type === "apiKey") {
    const where = String(scheme.in);
    if (where === "header")
      return headers.get(String(scheme.name)) ? [] : [`${name} needs header ${String(scheme.name)}`];
    return [];
  }
  const expected = scheme.type === "http" ? String(scheme.scheme).toLowerCase() : "bearer";
  const m = /^(\S+) +(\S.*)$/.exec(headers.get("authorization") ?? "");
  return m && m[1].toLowerCase() === expected
    ? []
    : [`${name} needs Authorization: ${expected === "bearer" ? "Bearer" : expected} <credentials>`];
}

/** `application/json` matches the range `application/json`, `application/*` and `*\/*`. */
function mediaMatches(range: string, type: string): boolean {
  const r = range.split(";")[0].trim().toLowerCase();
  if (r === type || r === "*/*") return true;
  return r.endsWith("/*") && type.startsWith(r.slice(0, -1));
}

/** The pointer a chain of `$ref`s ends at. */
function finalRef(index: DocumentIndex, obj: Json): string {
  let ref = String(obj.$ref);
  for (let next = index.at(ref); typeof next.$ref === "string"; next = index.at(ref)) ref = String(next.$ref);
  return ref;
}
