import { handlePublicRequest } from "./pipeline";
import { publicRouter } from "./routes";
import { SENT_URL_HEADER } from "./static-door";

/**
 * The route handler of every public API path (`/api/public/v1/...`, every method): the route table
 * (./routes) decides 404, 405 and the handler, so paths are declared once, for the pipeline, the tests and
 * the OpenAPI document alike. The catch-all route file (app/api/public/v1/[[...path]]/route.ts) exports
 * it as GET, POST..., and so does a route file for each static path of the table (`/me`, `/cards`,
 * `/leads`... app/api/public/v1/me/route.ts and the like). Why those files: Next.js 16 serves a request
 * for a dynamic route by building the route's named regular expression and its parameters anew
 * (`prefixRouteKeys` and `eo.page` in a CPU profile), about a tenth of the app's time for `GET /me`
 * (npm run bench, issue 22), while a static segment is found by its name. static-doors.test.ts keeps the
 * files and the table's static paths the same set. The paths with a parameter have one static file too,
 * {@link serveSentUrl}'s, to which the app's HTTP server hands them (./static-door.ts); the catch-all
 * still answers them when a request reaches Next.js some other way.
 * @returns the pipeline's answer (problem details for every refusal; never rejects)
 */
export function servePublicApi(request: Request): Promise<Response> {
  return handlePublicRequest(request, publicRouter);
}

/**
 * The door of the parameterised paths (app/api/public/v1/door/route.ts; ./static-door.ts says why): the
 * app's HTTP server rewrites such a request to the door's path and puts the URL it was sent to in
 * {@link SENT_URL_HEADER}, which the pipeline then routes, validates, logs and fingerprints. Without the
 * header (the door's own path called directly) it answers as {@link servePublicApi}: 404.
 * @returns the pipeline's answer (problem details for every refusal; never rejects)
 */
export function serveSentUrl(request: Request): Promise<Response> {
  return handlePublicRequest(request, publicRouter, request.headers.get(SENT_URL_HEADER) ?? undefined);
}

// What every public API route file exports as its method handlers: `export { GET, POST, ... } from` here.
export {
  servePublicApi as GET,
  servePublicApi as POST,
  servePublicApi as PATCH,
  servePublicApi as PUT,
  servePublicApi as DELETE,
  servePublicApi as HEAD,
  servePublicApi as OPTIONS,
};
