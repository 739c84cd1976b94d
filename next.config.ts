import type { NextConfig } from "next";

const dev = process.env.NODE_ENV !== "production";

/**
 * Console pages may not be framed or leak their address, and load nothing from other origins (the
 * console works offline). Next.js hydrates with inline scripts, hence 'unsafe-inline' for scripts;
 * development mode also evaluates code.
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

/**
 * PGlite ships WebAssembly files it loads relative to its own module, and postgres.js
 * opens sockets: both must be required from node_modules at run time, not bundled.
 */
const nextConfig: NextConfig = {
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "postgres", "pino", "ioredis"],
  poweredByHeader: false,
  typedRoutes: false,
  async headers() {
    return [
      {
        source: "/console/:path*",
        headers: [
          { key: "Content-Security-Policy", value: CONSOLE_CSP },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Cache-Control", value: "no-store" },
        ],
      },
    ];
  },
};

export default nextConfig;
