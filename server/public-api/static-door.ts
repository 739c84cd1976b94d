/**
 * The header that carries the URL a public API request was sent to (path and query, as on the request
 * line) when the app's HTTP server hands the request to {@link STATIC_DOOR_PATH}. The server sets it on
 * those requests and removes any value a client sent on every other request (server/http-server.ts).
 */
export const SENT_URL_HEADER = "x-service-public-url";

/**
 * The static route file (app/api/public/v1/door/route.ts) that serves the public API's parameterised
 * paths (`/cards/{id}`, `/conversations/{id}/messages`...). Why: Next.js 16 serves a request for a
 * dynamic route (the catch-all `[[...path]]`) by building the route's named regular expression and its
 * matcher anew on every request (`getServerUtils` in `RouteModule.prepare`), while a static route is found
 * by its name; on the 10,000-message page that was 0.16 ms of the app's 1.38 ms a request (npm run bench
 * --compare, issue 22). The route table still decides 404, 405 and the handler from the sent URL. Called
 * directly, the door is an unknown path like any other (404).
 */
export const STATIC_DOOR_PATH = "/api/public/v1/door";

const PREFIX = "/api/public/v1/";

/**
 * The paths below `/api/public/v1` with a route file of their own: the route table's static paths and the
 * OpenAPI document. Written out rather than read from the table, which would bring every route and service
 * into the server's own bundle (scripts/server-bundle.ts); static-doors.test.ts keeps it equal to the table.
 */
export const OWN_FILE_PATHS: ReadonlySet<string> = new Set([
  "/me",
  "/wallet",
  "/conversations",
  "/cards",
  "/leads",
  "/articles",
  "/articles/editorial-profile",
  "/articles/generation-jobs",
  "/strategist/reports",
  "/strategist/topics",
  "/strategist/actions",
  "/strategist/chat/sessions",
  "/dashboards/overview",
  "/analytics/timeseries",
  "/analytics/traffic-sources",
  "/analytics/funnel",
  "/webhooks",
  "/events",
  "/crm/status-map",
  "/disclosures",
  "/sites",
  "/intake/events",
  "/test-helpers/events",
  "/test-helpers/wallet",
  "/openapi.json",
]);

/**
 * Whether the server should hand a request for `url` (the request line's target, e.g.
 * `/api/public/v1/conversations/c1/messages?limit=5`) to the static door: a path below the public API that
 * has no route file of its own. Not the paths with a route file (the route table's static paths and
 * `/openapi.json`), and not a path ending in `/`: no route has one, so the catch-all answers it 404 as
 * before (next.config.ts `skipTrailingSlashRedirect`), and it needs no speed.
 */
export function goesToStaticDoor(url: string): boolean {
  if (!url.startsWith(PREFIX)) return false;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (path.endsWith("/")) return false;
  return !OWN_FILE_PATHS.has(path.slice(PREFIX.length - 1));
}
