import { describe, expect, it } from "vitest";
import * as catchAll from "@/app/api/[[...path]]/route";
import { setTestEnv } from "@/server/testing/test-db";

// Paths under /api/ that are no route: the catch-all route handler answers them as problem+json 404
// (Next.js routes them there; e2e/api/paths.spec.ts checks that over HTTP against the built app).

describe("app/api/[[...path]]", () => {
  it.each(["GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS"] as const)(
    "answers %s of an unknown /api/ path with a problem+json 404",
    async (method) => {
      setTestEnv();
      const res = await catchAll[method](new Request("https://api.example.ru/api/public/v2/me", { method }));
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const body = await res.json();
      expect(body).toEqual({
        type: "https://api.example.ru/developers/errors#not_found",
        title: "Not found",
        status: 404,
        code: "not_found",
        detail: `No route ${method} /api/public/v2/me exists; the public API is served under /api/public/v1.`,
        request_id: res.headers.get("x-request-id"),
      });
      expect(body.request_id).toMatch(/^req_[0-9a-f]{32}$/);
    },
  );
});
