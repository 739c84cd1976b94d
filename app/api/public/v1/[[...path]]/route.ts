import { servePublicApi } from "@/server/public-api/door";

// One door for the whole public API: the route table (server/public-api/routes) decides 404, 405 and
// the handler. The table's static paths also have a route file each (server/public-api/door.ts says why).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export {
  servePublicApi as GET,
  servePublicApi as POST,
  servePublicApi as PATCH,
  servePublicApi as PUT,
  servePublicApi as DELETE,
  servePublicApi as HEAD,
  servePublicApi as OPTIONS,
};
