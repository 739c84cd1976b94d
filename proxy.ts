import { NextResponse, type NextRequest } from "next/server";
import { NONCE_HEADER, newNonce, pageSecurityHeaders } from "@/server/lib/content-security-policy";

/**
 * Every page response gets the same security headers, from here alone (issue 76 item 5): a
 * Content-Security-Policy with a nonce of its own (issue 23 item 7), framing, referrer and sniffing
 * ({@link pageSecurityHeaders}). The policy also goes on the request, where Next.js finds the nonce and
 * puts it on its scripts; server components read it from {@link NONCE_HEADER} (app/docs/api/page.tsx).
 * Only console pages' `Cache-Control: no-store` stays in next.config.ts.
 */
export function proxy(request: NextRequest): NextResponse {
  const nonce = newNonce();
  const security = pageSecurityHeaders(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", security["content-security-policy"]);
  headers.set(NONCE_HEADER, nonce);
  const response = NextResponse.next({ request: { headers } });
  for (const [name, value] of Object.entries(security)) response.headers.set(name, value);
  return response;
}

/**
 * Pages only. Route handlers stay out: a proxy in front of a route makes Next.js copy the request
 * body for it, which would defeat the body limits of /api/public/v1 and /api/trpc; static files,
 * attachment downloads and the site snippet (/intake.js, loaded by tenants' pages) are not documents.
 * Prefetches of next/link carry no document either.
 */
export const config = {
  matcher: [
    {
      source: "/((?!api/|api$|_next/|files/|docs/api/assets/|favicon\\.ico|intake\\.js$).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
