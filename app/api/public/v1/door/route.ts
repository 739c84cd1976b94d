// The parameterised paths of the public API, handed here by the app's HTTP server with the URL they were
// sent to (server/public-api/static-door.ts says why); the route table decides 404, 405 and the handler.
export {
  serveSentUrl as GET,
  serveSentUrl as POST,
  serveSentUrl as PATCH,
  serveSentUrl as PUT,
  serveSentUrl as DELETE,
  serveSentUrl as HEAD,
  serveSentUrl as OPTIONS,
} from "@/server/public-api/door";
export const dynamic = "force-dynamic";
export const runtime = "nodejs";
