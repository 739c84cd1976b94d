/** Request header through which the proxy hands a page's nonce to server components (proxy.ts). */
export const NONCE_HEADER = "x-nonce";

/** A fresh nonce for one page response: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The Content-Security-Policy of the app's pages (every page; {@link pageSecurityHeaders}): nothing from other
 * origins (the app works offline), no framing, no plugins, forms and `<base>` only to ourselves.
 * Scripts run only with this response's nonce, which Next.js puts on its own script tags, plus what
 * those scripts load ('strict-dynamic'): an injected `<script>` or inline handler does not run, even
 * one pointing at a file of our own origin. Development adds 'unsafe-eval', which React's dev build
 * needs. Styles keep 'unsafe-inline': pages and Swagger UI use style attributes, which nonces cannot
 * cover, and styles cannot run code.
 */
export function pageCsp(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * The headers every page sends besides its policy (issue 76 item 5): no framing by anyone (for browsers
 * that predate `frame-ancestors`), no referrer to other origins, no content sniffing.
 */
export const PAGE_STATIC_HEADERS: Readonly<Record<string, string>> = {
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
};

/**
 * Every security header of one page response, the same set on every page (the console, `/`, `/docs/api`,
 * `/developers/errors`, `/pay/sandbox/{id}`, a 404): {@link pageCsp} with this response's nonce and
 * {@link PAGE_STATIC_HEADERS}. proxy.ts, which runs for every page, sets them; nothing else does, so no
 * page can be left out by a list of paths.
 */
export function pageSecurityHeaders(nonce: string, dev: boolean): Record<string, string> {
  return { "content-security-policy": pageCsp(nonce, dev), ...PAGE_STATIC_HEADERS };
}
