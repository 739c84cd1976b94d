import { handlePublicRequest } from "@/server/public-api/pipeline";
import { PEER_HEADER } from "@/server/public-api/client-ip";
import { publicRouter } from "@/server/public-api/routes";
import { openApiDocument } from "@/server/openapi/document";
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
   * Check the answer against the OpenAPI document (default true; a mismatch throws). Turn it off only
   * where a test breaks the service on purpose beyond the contract.
   */
  validate?: boolean;
}

/** Origin the test requests go to (the RU cell origin of the test environment). */
export const TEST_ORIGIN = "https://api.example.ru";

/**
 * Calls the public API the way the route handler does: a real `Request` into the pipeline, with the
 * peer address our HTTP server would stamp. `path` is relative to `/api/public/v1`. Every answer is
 * checked against the OpenAPI document (server/testing/response-validator.ts) unless `validate: false`.
 * @throws ResponseMismatch when the answer differs from the document.
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
  const request = new Request(`${TEST_ORIGIN}/api/public/v1${path}`, { method, headers, body, duplex: "half" } as RequestInit);
  const res = await handlePublicRequest(request, publicRouter);
  const text = await res.text();
  const answer = { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  if (o.validate !== false) responseValidator().check({ method, path, ...answer });
  return answer;
}

let validator: ResponseValidator | undefined;

/** The validator of this process's document (built from the route table once). */
export function responseValidator(): ResponseValidator {
  return (validator ??= new ResponseValidator(openApiDocument()));
}

/** Asserts-free helper: the catalog code of a problem answer, or undefined. */
export function codeOf(a: ApiAnswer): string | undefined {
  return a.body?.code;
}
