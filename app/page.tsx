import Link from "next/link";
import { connection } from "next/server";

/** The start page, rendered per request so Next.js's scripts carry this response's CSP nonce (proxy.ts). */
export default async function Home() {
  await connection();
  return (
    <main style={{ maxWidth: 720, margin: "48px auto", padding: "0 16px", lineHeight: 1.5 }}>
      <h1>Platform</h1>
      <p>
        The public API v1 answers under <code>/api/public/v1</code>; start with <code>GET /api/public/v1/me</code> and a
        key from <code>.data/demo.json</code>.
      </p>
      <p>
        <Link href="/console">Tenant console</Link>
      </p>
      <p>
        <Link href="/docs">Docs</Link>: guides to the API and the console, and the{" "}
        {/* A full page load: Swagger UI runs from its own script tags (app/docs/api/api-reference.tsx). */}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
        <a href="/docs/api">API reference</a>.
      </p>
    </main>
  );
}
