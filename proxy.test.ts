import { readdirSync } from "node:fs";
import path from "node:path";
import { unstable_doesMiddlewareMatch, unstable_getResponseFromNextConfig } from "next/experimental/testing/server";
import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";
import nextConfig from "./next.config";
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
      "/intake.js",
    ]) {
      expect(matches(other)).toBe(false);
    }
    expect(matches("/console", { "next-router-prefetch": "1" })).toBe(false);
  });
});

describe("the same security headers on every page (issue 76 item 5)", () => {
  /**
   * Every page of the app, from its `page.tsx` files (a page added later is covered without anyone
   * listing it): dynamic segments get a sample value, route groups vanish. Plus an unknown path (404).
   */
  function pagePaths(): string[] {
    const files = readdirSync(path.join(process.cwd(), "app"), { recursive: true, encoding: "utf8" }).filter(
      (f) => path.basename(f) === "page.tsx",
    );
    const paths = files.map(
      (f) =>
        "/" +
        path
          .dirname(f)
          .split(path.sep)
          .filter((s) => s !== "." && !/^\(.*\)$/.test(s))
          .map((s) => (s.startsWith("[") ? "0f8fad5b-d9cb-469f-a165-70867728950e" : s))
          .join("/"),
    );
    return [...paths.map((p) => (p === "/" ? p : p.replace(/\/$/, ""))), "/no-such-page"];
  }

  /** What a browser gets on `url`: the headers of next.config.ts for the path, then the proxy's when it runs. */
  async function pageHeaders(url: string): Promise<Headers> {
    const fromConfig = await unstable_getResponseFromNextConfig({ url, nextConfig });
    const headers = new Headers(fromConfig.headers);
    if (unstable_doesMiddlewareMatch({ config: proxyConfig, url })) {
      vi.stubEnv("NODE_ENV", "production");
      try {
        proxy(new NextRequest(url)).headers.forEach((value, name) => {
          if (!name.startsWith("x-middleware-")) headers.set(name, value);
        });
      } finally {
        vi.unstubAllEnvs();
      }
    }
    return headers;
  }

  it("finds the pages of the report among the app's pages", () => {
    expect(pagePaths()).toEqual(
      expect.arrayContaining([
        "/",
        "/console",
        "/docs/api",
        "/developers/errors",
        "/pay/sandbox/0f8fad5b-d9cb-469f-a165-70867728950e",
      ]),
    );
  });

  it.each(pagePaths())("%s sends the policy, DENY framing, same-origin referrers and nosniff", async (page) => {
    const h = await pageHeaders(`https://api.example.ru${page}`);
    expect(h.get("content-security-policy")).toMatch(/^default-src 'self'; script-src 'self' 'nonce-/);
    expect(h.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(h.get("x-frame-options")).toBe("DENY");
    expect(h.get("referrer-policy")).toBe("same-origin");
    expect(h.get("x-content-type-options")).toBe("nosniff");
  });

  it("keeps console pages out of caches", async () => {
    for (const page of ["/console", "/console/wallet"])
      expect((await pageHeaders(`https://api.example.ru${page}`)).get("cache-control")).toBe("no-store");
  });
});
