import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { ERROR_CATALOG, ERROR_GUIDE, type ErrorCode } from "@/server/errors";

export const metadata: Metadata = { title: "API errors" };

/** Text with `code spans` (the guide's only markup) as React nodes. */
function Inline({ text }: { text: string }) {
  return text.split("`").map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}

/**
 * `/developers/errors`: every code of the catalog with its status, meaning and what to do, each row
 * anchored by its code, so every problem `type` (`{cell_origin}/developers/errors#<code>`) resolves
 * (spec "Errors: Problem body"). Rendered per request so Next.js's scripts carry the CSP nonce (proxy.ts).
 */
export default async function ErrorsPage() {
  await connection();
  const codes = Object.keys(ERROR_CATALOG) as ErrorCode[];
  return (
    <main style={{ maxWidth: 960, margin: "48px auto", padding: "0 16px", lineHeight: 1.5, overflowWrap: "anywhere" }}>
      <h1>API errors</h1>
      <p>
        Every refusal of the public API is <code>application/problem+json</code> (RFC 9457) with <code>type</code>,{" "}
        <code>title</code>, <code>status</code>, <code>code</code>, <code>detail</code> and <code>request_id</code>.
        Branch on <code>code</code>, never on <code>detail</code>. By class: 400, 413 and 422 fix the request; 401 check
        the key and the cell; 402 top up or wait; 403 check scope, rights, address and plan; 404 the resource is absent
        or another tenant&apos;s; 409, 412 and 428 re-read and retry; 429 wait <code>Retry-After</code>; 5xx retry with
        an exponential pause and the same <code>Idempotency-Key</code>.
      </p>
      <p>
        The <Link href="/docs">guides</Link> show these answers in use: the{" "}
        <Link href="/docs/api-tour#errors">API tour</Link> provokes each kind of refusal with curl, and the{" "}
        {/* A full page load: Swagger UI runs from its own script tags (app/docs/api/api-reference.tsx). */}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
        <a href="/docs/api">API reference</a> lists which codes each route answers.
      </p>
      <table style={{ borderCollapse: "collapse", width: "100%" }}>
        <thead>
          <tr style={{ textAlign: "left", borderBottom: "2px solid #ccc" }}>
            <th style={{ padding: "6px 8px" }}>Code</th>
            <th style={{ padding: "6px 8px" }}>HTTP</th>
            <th style={{ padding: "6px 8px" }}>When</th>
            <th style={{ padding: "6px 8px" }}>What to do</th>
          </tr>
        </thead>
        <tbody>
          {codes.map((code) => (
            <tr key={code} id={code} style={{ borderBottom: "1px solid #eee", verticalAlign: "top" }}>
              <td style={{ padding: "6px 8px" }}>
                <a href={`#${code}`}>
                  <code>{code}</code>
                </a>
                <div style={{ color: "#555" }}>{ERROR_CATALOG[code].title}</div>
              </td>
              <td style={{ padding: "6px 8px" }}>{ERROR_CATALOG[code].status}</td>
              <td style={{ padding: "6px 8px" }}>
                <Inline text={ERROR_GUIDE[code].when} />
              </td>
              <td style={{ padding: "6px 8px" }}>
                <Inline text={ERROR_GUIDE[code].action || "—"} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
