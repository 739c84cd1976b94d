// Writes the OpenAPI document of the public API to a file (default .data/openapi.json), for the lint
// step of CI (Spectral), the typed-client example (openapi-typescript) and anyone who wants a copy.
// Usage: npm run openapi [-- <out file>] [--preview <feature>] (the document with a preview's routes,
// as served at /api/public/v1/openapi.json?preview=<feature>) [--all-previews] (with every preview's
// routes: what the SDK's types are generated from, npm run sdk:build)
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { openApiDocument, openApiDocumentWithAllPreviews } from "@/server/openapi/document";
import { isPreviewFeature, PREVIEW_FEATURES } from "@/server/schemas/previews";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { preview: { type: "string" }, "all-previews": { type: "boolean" } },
});
if (values.preview !== undefined && !isPreviewFeature(values.preview)) {
  console.error(`Unknown preview "${values.preview}". Known: ${PREVIEW_FEATURES.join(", ")}.`);
  process.exit(2);
}
const out = path.resolve(positionals[0] ?? ".data/openapi.json");
mkdirSync(path.dirname(out), { recursive: true });
const doc = values["all-previews"]
  ? openApiDocumentWithAllPreviews()
  : openApiDocument(values.preview as (typeof PREVIEW_FEATURES)[number] | undefined);
writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");
console.log(
  `wrote ${path.relative(process.cwd(), out)}: ${Object.keys(doc.paths ?? {}).length} paths, ${Object.keys(doc.webhooks ?? {}).length} webhooks`,
);
