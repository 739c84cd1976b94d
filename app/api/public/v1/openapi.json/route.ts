import { openApiResponse } from "@/server/openapi/serve";

// The OpenAPI 3.1 document of the public API, generated from the route table. A static segment, so it
// wins over the catch-all [[...path]] of the API; no key needed.
export const runtime = "nodejs";

export function GET(request: Request): Response {
  return openApiResponse(request);
}
