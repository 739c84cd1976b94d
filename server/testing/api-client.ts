import { handlePublicRequest } from "@/server/public-api/pipeline";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { publicRouter } from "@/server/public-api/routes";
import { openApiDocument } from "@/server/openapi/document";
import type { PreviewFeature } from "@/server/schemas/previews";
import { RequestValidator, type SentRequest } from "./request-validator";
import { ResponseValidator } from "./response-validator";

/** What a test sees of an answer. `body` is parsed JSON, or null for an empty body. */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** Options of one call: key (Bearer), JSON body or raw body, extra headers, caller address (default 127.0.0.1). */
export interface CallOptions {
  key?: string | null;
  json?: unknown;
  raw?: BodyInit;
  headers?: Record<string, string>;
  ip?: string | null;
  idempotencyKey?: string;
  /**
   * Check the answer against the OpenAPI document, and a request answered 2xx against the document's
   * request schema (default true; a mismatch throws). Turn it off only where a test breaks the service on
   * purpose beyond the contract.
   */
  validate?: boolean;
  /** Check against the document of this preview feature (its routes added) instead of the default one. */
  preview?: PreviewFeature;
}

/** Origin the test requests go to (the RU cell origin of the test environment). */
export const TEST_ORIGIN = "https://api.example.ru";

/**
 * Calls the public API the way the route handler does: a real `Request` into the pipeline, with the
 * peer address our HTTP server would stamp. `path` is relative to `/api/public/v1`. Unless
 * `validate: false`, every answer is checked against the OpenAPI document
 * (server/testing/response-validator.ts), and every request the API accepted (2xx) against the
 * document's parameters, security and request body (server/testing/request-validator.ts): what the API
 * accepts, the document must allow.
 * @throws ResponseMismatch when the answer differs from the document.
 * @throws RequestMismatch when the API accepted a request the document refuses.
 */
export async function call(method: string, path: string, o: CallOptions = {}): Promise<ApiAnswer> {
  const headers = new Headers(o.headers);
  if (o.key) headers.set("authorization", `Bearer ${o.key}`);
  if (o.ip !== null) headers.set(PEER_HEADER, o.ip ?? "127.0.0.1");
  if (o.idempotencyKey) headers.set("idempotency-key", o.idempotencyKey);
  let body: BodyInit | undefined = o.raw;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const request = new Request(`${TEST_ORIGIN}/api/public/v1${path}`, {
    method,
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  const res = await handlePublicRequest(request, publicRouter);
  const text = await res.text();
  const answer = { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  if (o.validate !== false) {
    responseValidator(o.preview).check({ method, path, ...answer });
    if (answer.status >= 200 && answer.status < 300)
      requestValidator(o.preview).check({ method, path, headers, body: sentBody(o) }, answer.status);
  }
  return answer;
}

/**
 * A `fetch` into the pipeline in-process, for clients that take one (the SDK's `createClient({ fetch })`):
 * the request as sent, with the peer address our HTTP server would stamp (default 127.0.0.1), and every
 * public API answer checked against the OpenAPI document like {@link call}'s (the document of `preview`
 * when given, which adds that preview's routes).
 * @throws ResponseMismatch when an answer differs from the document.
 */
export function inProcessFetch(
  opts: { ip?: string; preview?: PreviewFeature } = {},
): (request: Request) => Promise<Response> {
  return async (request) => {
    const headers = new Headers(request.headers);
    headers.set(PEER_HEADER, opts.ip ?? "127.0.0.1");
    const bytes = request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer();
    const body = bytes && bytes.byteLength > 0 ? bytes : undefined;
    const res = await handlePublicRequest(
      new Request(request.url, { method: request.method, headers, body, signal: request.signal }),
      publicRouter,
    );
    const text = await res.text();
    responseValidator(opts.preview).check({
      method: request.method,
      path: new URL(request.url).pathname,
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : null,
    });
    return new Response(text || null, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/**
 * `fetch` to the API served over HTTP by a test's child process (server/testing/api-process.ts), with
 * the checks of {@link call}: the answer against the document, and a request answered 2xx against the
 * document's request schema. `init.body` must be a string (or absent).
 * @throws ResponseMismatch / RequestMismatch on a difference; a network failure rejects as `fetch` does.
 */
export async function fetchChecked(url: string, init: RequestInit = {}): Promise<ApiAnswer> {
  const res = await fetch(url, init);
  const text = await res.text();
  const answer = { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  const method = init.method ?? "GET";
  responseValidator().check({ method, path: url, ...answer });
  if (res.ok)
    requestValidator().check(
      { method, path: url, headers: new Headers(init.headers), body: sentBody({ raw: init.body ?? undefined }) },
      res.status,
    );
  return answer;
}

/**
 * Builds the document and both validators and compiles all their schemas now. For tests that race a
 * child process (a burst, a kill): a first check would otherwise compile schemas mid-race and stall
 * this process's event loop for a moment that the race then depends on.
 */
export function warmUpValidators(): void {
  responseValidator().precompile();
  requestValidator().precompile();
}

const validators = new Map<string, ResponseValidator>();

/** The validator of this process's document (built from the route table once), or of a preview's document. */
export function responseValidator(preview?: PreviewFeature): ResponseValidator {
  let v = validators.get(preview ?? "");
  if (!v) validators.set(preview ?? "", (v = new ResponseValidator(openApiDocument(preview))));
  return v;
}

const reqValidators = new Map<string, RequestValidator>();

/** The request validator of this process's document, or of a preview's document. */
export function requestValidator(preview?: PreviewFeature): RequestValidator {
  let v = reqValidators.get(preview ?? "");
  if (!v) reqValidators.set(preview ?? "", (v = new RequestValidator(openApiDocument(preview))));
  return v;
}

/** The body of a call as the validator reads it: JSON as given, a text body as sent, nothing for an empty or absent one. */
function sentBody(o: CallOptions): SentRequest["body"] {
  if (o.json !== undefined) return { json: o.json };
  if (typeof o.raw === "string") return o.raw.length ? { text: o.raw } : undefined;
  if (o.raw instanceof Uint8Array || o.raw instanceof ArrayBuffer)
    return o.raw.byteLength ? { text: new TextDecoder().decode(o.raw) } : undefined;
  if (o.raw !== undefined && o.raw !== null)
    throw new Error("call(): the request validator reads string and byte bodies only");
  return undefined;
}

/** Asserts-free helper: the catalog code of a problem answer, or undefined. */
export function codeOf(a: ApiAnswer): string | undefined {
  return a.body?.code;
}
