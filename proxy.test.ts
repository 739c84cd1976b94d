import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";
import { config as proxyConfig, proxy } from "./proxy";

// The pages' Content-Security-Policy (issue 23 item 7): a nonce per response instead of
// 'unsafe-inline' scripts, on the console, the start page and the API reference. (Kept apart from the
// sign-in tests: loading next/server makes better-auth expect a Next.js request scope.)

describe("page Content-Security-Policy (proxy.ts)", () => {
  function run(path: string, nodeEnv = "production") {
    vi.stubEnv("NODE_ENV", nodeEnv);
    try {
      const res = proxy(new NextRequest(`https://api.example.ru${path}`));
      const csp = res.headers.get("content-security-policy")!;
      const directives = Object.fromEntries(
        csp
          .split(";")
          .map((d) => d.trim().split(/\s+/))
          .map(([k, ...v]) => [k, v.join(" ")]),
      );
      // NextResponse.next({ request: { headers } }) hands the rewritten request headers to Next.js like this.
      const onRequest = (name: string) => res.headers.get(`x-middleware-request-${name}`);
      return { csp, directives, onRequest };
    } finally {
      vi.unstubAllEnvs();
    }
  }

  it.each(["/console", "/console/wallet", "/console/sign-in", "/", "/docs/api"])(
    "%s: scripts only with this response's nonce, no 'unsafe-inline', nothing from elsewhere",
    (path) => {
      const { csp, directives, onRequest } = run(path);
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(directives["script-src"])?.[1];
      expect(nonce).toBeDefined();
      expect(Buffer.from(nonce!, "base64")).toHaveLength(16);
      expect(directives["script-src"]).toBe(`'self' 'nonce-${nonce}' 'strict-dynamic'`);
      expect(directives["frame-ancestors"]).toBe("'none'");
      expect(directives["default-src"]).toBe("'self'");
      expect(directives["object-src"]).toBe("'none'");
      expect(directives["base-uri"]).toBe("'self'");
      expect(directives["form-action"]).toBe("'self'");
      expect(directives["connect-src"]).toBe("'self'");
      expect(csp).not.toContain("unsafe-eval");
      expect(csp).not.toMatch(/https?:|\*/);
      // The same policy reaches the render, where Next.js takes the nonce for its scripts.
      expect(onRequest("content-security-policy")).toBe(csp);
      expect(onRequest("x-nonce")).toBe(nonce);
    },
  );

  it("draws a new nonce for every response", () => {
    const nonces = new Set(Array.from({ length: 50 }, () => run("/console").onRequest("x-nonce")));
    expect(nonces.size).toBe(50);
  });

  it("allows eval only in development, where React's dev build needs it", () => {
    const { directives } = run("/console", "development");
    expect(directives["script-src"]).toMatch(/^'self' 'nonce-[^']+' 'strict-dynamic' 'unsafe-eval'$/);
    expect(directives["frame-ancestors"]).toBe("'none'");
  });

  it("runs on pages, never on route handlers (their bodies must stream), static files or downloads", () => {
    const matches = (url: string, headers = {}) => unstable_doesMiddlewareMatch({ config: proxyConfig, url, headers });
    for (const page of ["/", "/console", "/console/integrations/abc", "/console/sign-in", "/docs/api"])
      expect(matches(page)).toBe(true);
    for (const other of [
      "/api/trpc/tenants.mine",
      "/api/public/v1/cards",
      "/api/auth/sign-in/email",
      "/api/inngest",
      "/api",
      "/_next/static/chunks/app.js",
      "/files/attachments/x",
      "/docs/api/assets/init.js",
      "/favicon.ico",
    ]) {
      expect(matches(other)).toBe(false);
    }
    expect(matches("/console", { "next-router-prefetch": "1" })).toBe(false);
  });
});
