// Writes the OpenAPI document of the public API to a file (default .data/openapi.json), for the lint
// step of CI (Spectral), the typed-client example (openapi-typescript) and anyone who wants a copy.
// Usage: npm run openapi [-- <out file>]
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openApiDocument } from "@/server/openapi/document";

const out = path.resolve(process.argv[2] ?? ".data/openapi.json");
mkdirSync(path.dirname(out), { recursive: true });
const doc = openApiDocument();
writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");
console.log(
  `wrote ${path.relative(process.cwd(), out)}: ${Object.keys(doc.paths ?? {}).length} paths, ${Object.keys(doc.webhooks ?? {}).length} webhooks`,
);
