import { test as base, type APIRequestContext, type APIResponse } from "@playwright/test";
import { RequestValidator, type SentRequest } from "@/server/testing/request-validator";
import { ResponseValidator } from "@/server/testing/response-validator";
import { PRISM_PORT, THROUGH_PRISM } from "../prism/settings";
import { prismVerdict } from "@/server/testing/prism-verdict";

const API = "/api/public/v1";
const DOCUMENT = "/api/public/v1/openapi.json";
const METHODS = {
  get: "GET",
  post: "POST",
  patch: "PATCH",
  put: "PUT",
  delete: "DELETE",
  head: "HEAD",
  fetch: "",
} as const;
const PRISM = `http://127.0.0.1:${PRISM_PORT}`;

type Options = {
  method?: string;
  headers?: Record<string, string>;
  data?: unknown;
  form?: unknown;
  multipart?: unknown;
};
interface Validators {
  answers: ResponseValidator;
  requests: RequestValidator;
}

/**
 * Wraps the `request` fixture for the public API (paths under /api/public/v1, the document itself
 * excepted):
 * - with E2E_PRISM=1 the request goes through Prism's proxy (e2e/prism/proxy.ts), and any violation
 *   Prism reports for the answer, or for a request the app accepts, fails the test (./prism-verdict.ts);
 * - every answer is checked against the document the app serves (server/testing/response-validator.ts),
 *   and every request answered 2xx against the document's parameters, security and body
 *   (server/testing/request-validator.ts).
 */
function validating(request: APIRequestContext, v: Validators, baseURL: string): APIRequestContext {
  return new Proxy(request, {
    get(target, prop, receiver) {
      const original = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || !(prop in METHODS) || typeof original !== "function") return original;
      return async (url: unknown, options?: Options): Promise<APIResponse> => {
        const send = (to: string) => original.call(target, to, options) as Promise<APIResponse>;
        const method = (METHODS[prop as keyof typeof METHODS] || options?.method || "GET").toUpperCase();
        const full = typeof url === "string" ? new URL(url, baseURL) : undefined;
        if (!full || !full.pathname.startsWith(API) || full.pathname === DOCUMENT) return send(url as string);
        const rel = full.pathname.slice(API.length) + full.search;

        const res = THROUGH_PRISM
          ? await prismVerdict(method, rel, await send(PRISM + rel), () => send(full.href))
          : await send(full.href);
        const text = method === "HEAD" ? "" : await res.text();
        v.answers.check({
          method,
          path: full.pathname,
          status: res.status(),
          headers: res.headers(),
          body: text ? JSON.parse(text) : null,
        });
        if (res.ok()) v.requests.check(sentRequest(method, new URL(res.url()), options), res.status());
        return res;
      };
    },
  });
}

/** The request as Playwright sent it: its URL (with `params`), headers, and the body `data` turned into (with the Content-Type Playwright adds). */
function sentRequest(method: string, url: URL, o: Options = {}): SentRequest {
  const headers = new Headers(o.headers);
  const jsonType = (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase() === "application/json";
  let body: SentRequest["body"];
  if (typeof o.data === "string") body = jsonType && !isJson(o.data) ? { json: o.data } : { text: o.data };
  else if (Buffer.isBuffer(o.data)) body = { text: o.data.toString("utf8") };
  else if (o.data !== undefined) {
    body = { json: o.data };
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  } else if (o.form !== undefined || o.multipart !== undefined) {
    body = { text: "(form fields)" };
    if (!headers.has("content-type"))
      headers.set("content-type", o.form !== undefined ? "application/x-www-form-urlencoded" : "multipart/form-data");
  }
  return { method, path: url.pathname + url.search, headers, body };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** `test` of specs that call the public API: `request` validates both directions against the served document. */
export const test = base.extend<object, { apiValidators: Validators }>({
  apiValidators: [
    async ({ playwright }, provide, workerInfo) => {
      const ctx = await playwright.request.newContext({ baseURL: workerInfo.project.use.baseURL });
      const res = await ctx.get(DOCUMENT);
      if (!res.ok()) throw new Error(`GET ${DOCUMENT} answered ${res.status()}`);
      const document = await res.json();
      await ctx.dispose();
      await provide({ answers: new ResponseValidator(document), requests: new RequestValidator(document) });
    },
    { scope: "worker" },
  ],
  request: async ({ request, apiValidators, baseURL }, provide) => {
    await provide(validating(request, apiValidators, baseURL!));
  },
});

export { expect } from "@playwright/test";
