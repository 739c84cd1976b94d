// A static path of the public API's route table, served by the catch-all's door (server/public-api/door.ts
// says why it has a file of its own).
export { GET, POST, PATCH, PUT, DELETE, HEAD, OPTIONS } from "@/server/public-api/door";
export const dynamic = "force-dynamic";
export const runtime = "nodejs";
