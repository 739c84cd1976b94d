import type { Metadata } from "next";
import { ASSETS_PATH } from "@/server/openapi/reference-assets";

export const metadata: Metadata = { title: "API reference", description: "Public HTTP API v1: the OpenAPI document rendered by Swagger UI" };

/**
 * The API reference: Swagger UI over `/api/public/v1/openapi.json`, every file served by the app itself
 * (app/docs/api/assets), so it renders offline; no inline script, so a `script-src 'self'` policy holds.
 */
export default function ApiReferencePage() {
  return (
    <>
      <link rel="stylesheet" href={`${ASSETS_PATH}/swagger-ui.css`} />
      <link rel="icon" type="image/png" href={`${ASSETS_PATH}/favicon-32x32.png`} />
      <noscript>
        The reference needs JavaScript. The document itself is at <a href="/api/public/v1/openapi.json">/api/public/v1/openapi.json</a>.
      </noscript>
      <div id="swagger-ui" />
      <script src={`${ASSETS_PATH}/swagger-ui-bundle.js`} defer />
      <script src={`${ASSETS_PATH}/init.js`} defer />
    </>
  );
}
