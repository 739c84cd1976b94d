import { readFile } from "node:fs/promises";
import path from "node:path";

/** Address of the assets of the API reference page (served by app/docs/api/assets/[file]/route.ts). */
export const ASSETS_PATH = "/docs/api/assets";

/** Address of the document the reference page renders. */
export const DOCUMENT_URL = "/api/public/v1/openapi.json";

/**
 * Starts Swagger UI on the page. A file of its own, not an inline script, so the page works under a
 * Content-Security-Policy of `script-src 'self'`.
 */
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(DOCUMENT_URL)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    validatorUrl: null
  });
});
`;

/** The files the page may load: Swagger UI's own from swagger-ui-dist, and the start script. */
const ASSETS: Record<string, { type: string; source: "dist" | "init" }> = {
  "swagger-ui.css": { type: "text/css; charset=utf-8", source: "dist" },
  "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", source: "dist" },
  "favicon-32x32.png": { type: "image/png", source: "dist" },
  "favicon-16x16.png": { type: "image/png", source: "dist" },
  "init.js": { type: "text/javascript; charset=utf-8", source: "init" },
};

/** Names of the served files. */
export const ASSET_FILES = Object.keys(ASSETS);

/**
 * One asset of the API reference, served from the app itself (no CDN: the page works offline).
 * Only allowlisted names are served; anything else is 404 (so no path can reach other files).
 * Files come from `node_modules/swagger-ui-dist` under the working directory of the app.
 */
export async function referenceAsset(file: string): Promise<Response> {
  const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
  if (!asset)
    return new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  const bytes =
    asset.source === "init"
      ? Buffer.from(INIT_SCRIPT)
      : await readFile(path.join(process.cwd(), "node_modules", "swagger-ui-dist", file));
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      "content-type": asset.type,
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
    },
  });
}
