import type { NextConfig } from "next";

/**
 * PGlite ships WebAssembly files it loads relative to its own module, and postgres.js
 * opens sockets: both must be required from node_modules at run time, not bundled.
 */
const nextConfig: NextConfig = {
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "postgres", "pino"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
