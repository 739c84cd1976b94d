import { servePublicApi } from "@/server/public-api/door";

// A static path of the public API's route table, served by the same door as the catch-all
// (server/public-api/door.ts says why it has a file of its own).
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
