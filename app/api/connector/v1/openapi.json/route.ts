import { connectorDocumentResponse } from "@/server/public-api/connector/document";

// The OpenAPI 3.1 document of the site connector protocol; no token needed.
export const runtime = "nodejs";

export function GET(): Response {
  return connectorDocumentResponse();
}
