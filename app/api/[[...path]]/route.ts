import { unknownApiPathResponse } from "@/server/public-api/unknown-path";

// Every path under /api/ that no other route claims (/api itself, a mistyped version or prefix such as
// /api/public/v2/...): problem+json 404 rather than Next's HTML page. More specific routes (the public
// API, auth, tRPC, Inngest, health) win over this catch-all.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const serve = (request: Request) => unknownApiPathResponse(request);

export { serve as GET, serve as POST, serve as PATCH, serve as PUT, serve as DELETE, serve as HEAD, serve as OPTIONS };
