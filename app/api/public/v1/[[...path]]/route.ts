// One door for the whole public API: the route table (server/public-api/routes) decides 404, 405 and
// the handler. The table's static paths also have a route file each (server/public-api/door.ts says why).
export { GET, POST, PATCH, PUT, DELETE, HEAD, OPTIONS } from "@/server/public-api/door";
export const dynamic = "force-dynamic";
export const runtime = "nodejs";
