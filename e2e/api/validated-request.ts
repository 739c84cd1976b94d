import { test as base, type APIRequestContext, type APIResponse } from "@playwright/test";
import { ResponseValidator } from "@/server/testing/response-validator";

const API = "/api/public/v1/";
const DOCUMENT = "/api/public/v1/openapi.json";
const METHODS = { get: "GET", post: "POST", patch: "PATCH", put: "PUT", delete: "DELETE", head: "HEAD" } as const;

/**
 * Wraps the `request` fixture so every answer of the public API is checked against the OpenAPI
 * document the running app serves (server/testing/response-validator.ts): a mismatch fails the test.
 */
function validating(request: APIRequestContext, validator: ResponseValidator): APIRequestContext {
  return new Proxy(request, {
    get(target, prop, receiver) {
      const original = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || !(prop in METHODS) || typeof original !== "function") return original;
      return async (url: string, options?: unknown): Promise<APIResponse> => {
        const res: APIResponse = await original.call(target, url, options);
        const path = new URL(res.url()).pathname;
        if (path.startsWith(API) && path !== DOCUMENT) {
          const text = prop === "head" ? "" : await res.text();
          validator.check({ method: METHODS[prop as keyof typeof METHODS], path, status: res.status(), headers: res.headers(), body: text ? JSON.parse(text) : null });
        }
        return res;
      };
    },
  });
}

/** `test` of the API specs: `request` validates every public API answer against the served document. */
export const test = base.extend<object, { apiValidator: ResponseValidator }>({
  apiValidator: [
    async ({ playwright }, provide, workerInfo) => {
      const ctx = await playwright.request.newContext({ baseURL: workerInfo.project.use.baseURL });
      const res = await ctx.get(DOCUMENT);
      if (!res.ok()) throw new Error(`GET ${DOCUMENT} answered ${res.status()}`);
      const validator = new ResponseValidator(await res.json());
      await ctx.dispose();
      await provide(validator);
    },
    { scope: "worker" },
  ],
  request: async ({ request, apiValidator }, provide) => {
    await provide(validating(request, apiValidator));
  },
});

export { expect } from "@playwright/test";
