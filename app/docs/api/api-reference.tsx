import { ASSETS_PATH } from "@/server/openapi/reference-assets";

/**
 * Swagger UI over `/api/public/v1/openapi.json`, every file served by the app itself
 * (app/docs/api/assets), so it renders offline. No inline script; the two script files carry the
 * response's CSP nonce, which the page's 'strict-dynamic' policy requires (proxy.ts).
 */
export function ApiReference({ nonce }: { nonce: string | undefined }) {
  return (
    <>
      <link rel="stylesheet" href={`${ASSETS_PATH}/swagger-ui.css`} />
      <link rel="icon" type="image/png" href={`${ASSETS_PATH}/favicon-32x32.png`} />
      <noscript>
        The reference needs JavaScript. The document itself is at{" "}
        <a href="/api/public/v1/openapi.json">/api/public/v1/openapi.json</a>.
      </noscript>
      {/* Swagger UI fills this element itself. Given as inner HTML, React does not hydrate its children:
          when the deferred scripts run before hydration (the e2e saw it in CI), the rendered reference is
          not a hydration mismatch (React error #418) that makes React render the page again and wipe it. */}
      <div id="swagger-ui" dangerouslySetInnerHTML={{ __html: "" }} />
      <script src={`${ASSETS_PATH}/swagger-ui-bundle.js`} nonce={nonce} defer />
      <script src={`${ASSETS_PATH}/init.js`} nonce={nonce} defer />
    </>
  );
}
