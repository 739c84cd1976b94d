import type { ErrorObject } from "ajv";
import type { OpenApiDocument } from "@/server/openapi/document";

// Only plain code here: the e2e tests load this file in the Playwright process, without the server.
const API_PREFIX = "/api/public/v1";

/** A JSON object of the document. */
export type Json = Record<string, unknown>;

/** The operation a request reaches: its path template, JSON pointer and the template's parameters as sent (still percent-encoded). */
export interface OperationMatch {
  template: string;
  method: string;
  /** `#/paths/<escaped template>/<method>` */
  pointer: string;
  operation: Json;
  pathItem: Json;
  pathParams: Record<string, string>;
}

/**
 * Finds operations of an OpenAPI document by method and request path (path templates matched with the
 * fewest parameters first, so `/webhooks/{id}` never shadows a literal sibling) and resolves local `$ref`s.
 */
export class DocumentIndex {
  readonly doc: Json;
  private readonly templates: { template: string; re: RegExp; names: string[] }[];

  constructor(document: OpenApiDocument | Json) {
    this.doc = document as Json;
    this.templates = Object.keys(this.doc.paths as Json)
      .map((template) => ({
        template,
        re: templateRe(template),
        names: [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
      }))
      .sort((a, b) => a.names.length - b.names.length);
  }

  /** The path template `path` (absolute, relative to the API, with or without query) falls under, or undefined. */
  template(path: string): string | undefined {
    const rel = relativePath(path);
    return this.templates.find((t) => t.re.test(rel))?.template;
  }

  /** The operation of `method` at `path`, or undefined when the document has none. */
  find(method: string, path: string): OperationMatch | undefined {
    const rel = relativePath(path);
    const t = this.templates.find((x) => x.re.test(rel));
    if (!t) return undefined;
    const pathItem = (this.doc.paths as Json)[t.template] as Json;
    const m = method.toLowerCase();
    const operation = pathItem[m] as Json | undefined;
    if (!operation) return undefined;
    const values = t.re.exec(rel)!.slice(1);
    const pathParams = Object.fromEntries(t.names.map((n, i) => [n, values[i]]));
    return {
      template: t.template,
      method: m,
      pointer: `#/paths/${escapePointer(t.template)}/${m}`,
      operation,
      pathItem,
      pathParams,
    };
  }

  /** Follows local `$ref`s (`#/components/...`) to the object they name. */
  deref(obj: Json): Json {
    let cur = obj;
    while (typeof cur.$ref === "string") cur = this.at(String(cur.$ref));
    return cur;
  }

  /** The value at a local JSON pointer (`#/a/b`). */
  at(pointer: string): Json {
    return pointer
      .slice(2)
      .split("/")
      .reduce<Json>((o, k) => o[k.replace(/~1/g, "/").replace(/~0/g, "~")] as Json, this.doc);
  }
}

function templateRe(template: string): RegExp {
  const src = template
    .split("/")
    .map((seg) => (/^\{\w+\}$/.test(seg) ? "([^/]+)" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${src}$`); // exact, as the API matches (no trailing-slash alias)
}

/** The path under `/api/public/v1`, without origin and query: `https://x/api/public/v1/cards?limit=1` → `/cards`. */
export function relativePath(path: string): string {
  const p = path.split("?")[0].replace(/^https?:\/\/[^/]+/, "");
  return p.startsWith(API_PREFIX) ? p.slice(API_PREFIX.length) || "/" : p;
}

/** One JSON pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** One Ajv error as a line: where, and what is wrong (an undocumented field is named). */
export function describeError(e: ErrorObject): string {
  const at = e.instancePath || "(root)";
  if (e.keyword === "additionalProperties")
    return `${at}: field "${String(e.params.additionalProperty)}" is not documented`;
  return `${at}: ${e.message ?? e.keyword}${e.keyword === "enum" ? ` (${JSON.stringify(e.params.allowedValues)})` : ""}`;
}
