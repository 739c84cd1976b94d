// Writes the OpenAPI document of the site connector protocol (default .data/openapi-connector.json), as
// served at /api/connector/v1/openapi.json, for the lint step of CI (Spectral) and connector authors.
// Usage: npm run openapi:connector [-- <out file>]
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { connectorDocument } from "@/server/public-api/connector/document";

const out = path.resolve(process.argv[2] ?? ".data/openapi-connector.json");
mkdirSync(path.dirname(out), { recursive: true });
const doc = connectorDocument();
writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");
console.log(`wrote ${path.relative(process.cwd(), out)}: ${Object.keys(doc.paths ?? {}).length} paths`);
process.exit(0);
