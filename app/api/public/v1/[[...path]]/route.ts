import { handlePublicRequest } from "@/server/public-api/pipeline";
import { publicRouter } from "@/server/public-api/routes";

// One door for the whole public API: the route table (server/public-api/routes) decides 404, 405 and
// the handler, so paths are declared once, for the pipeline, the tests and the OpenAPI document alike.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const serve = (request: Request) => handlePublicRequest(request, publicRouter);

export { serve as GET, serve as POST, serve as PATCH, serve as PUT, serve as DELETE, serve as HEAD, serve as OPTIONS };
