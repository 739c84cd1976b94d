import type { NextConfig } from "next";

/**
 * PGlite ships WebAssembly files it loads relative to its own module, and postgres.js
 * opens sockets: both must be required from node_modules at run time, not bundled. drizzle-orm too: the
 * server (scripts/start.ts, bundled apart by esbuild) opens the process-wide database with node_modules'
 * drizzle, and a second, bundled copy in the routes made every `is(x, Column)` check of that database's
 * query building and row mapping miss `instanceof` and walk prototype chains (a leads page's profile:
 * drizzle 8.4 % of samples with two copies, 4.9 % with one).
 */
/**
 * A one-shot build (`NEXT_ONE_SHOT_BUILD=1`, set by `.ci/run`): one build of a fresh clone whose every file
 * `npm run typecheck` has already checked. It skips Next's own second type check (~115 s of CPU there) and
 * writing Turbopack's build cache (~28 s), which no later build of that clone reads. A developer's
 * `npm run build` keeps both.
 */
const oneShotBuild = process.env.NEXT_ONE_SHOT_BUILD === "1";

const nextConfig: NextConfig = {
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "pino", "ioredis", "drizzle-orm"],
  poweredByHeader: false,
  // `/api/public/v1/cards/` is answered by the API itself (a 404 naming `/cards`), not by a 308 with a
  // relative Location that clients without redirects (or a POST) would not follow.
  skipTrailingSlashRedirect: true,
  typedRoutes: false,
  typescript: { ignoreBuildErrors: oneShotBuild },
  experimental: {
    // Server code keeps its function names, so CPU profiles of the running app (`npm run bench --
    // --profile`) tell our functions from Next.js's and stack traces stay readable; it costs nothing
    // per request, only a larger server bundle on disk.
    serverMinification: false,
    // A route's server code loads on its first request, not all of them at start: a server that only
    // answers the API does not hold the console's pages, tRPC and React's server renderer (about 65 MB
    // resident, issue 22 item 4); the first request to each route takes a few ms longer.
    preloadEntriesOnStart: false,
    turbopackFileSystemCacheForBuild: !oneShotBuild,
  },
  // Console pages are never cached. The pages' security headers (policy, framing, referrer, sniffing)
  // are set on every page by proxy.ts, from one place (server/lib/content-security-policy.ts).
  async headers() {
    return [{ source: "/console/:path*", headers: [{ key: "Cache-Control", value: "no-store" }] }];
  },
};

export default nextConfig;
