import { getDb } from "@/db/client";
import { downloadAttachment } from "@/server/services/conversations/attachment-download";
import { checkReadiness } from "@/server/services/health/readiness";

// The app's HTTP doors beside `/api/public/v1` that integrators' systems reach: signed attachment links
// that API answers hand out, and readiness for load balancers. Thin: each calls one service and shapes
// the HTTP answer.

function problem(status: number, detail: string): Response {
  return Response.json(
    { title: status === 403 ? "Link invalid or expired" : "Not found", status, detail },
    { status, headers: { "content-type": "application/problem+json", "cache-control": "no-store" } },
  );
}

/**
 * `GET /files/attachments/{id}?expires=&signature=`: the file's bytes with its MIME type, as a download,
 * never cached; 403 for an expired or altered link; 404 when the file is gone.
 */
export async function serveAttachment(id: string, expires: string | null, signature: string | null): Promise<Response> {
  const r = await downloadAttachment(await getDb(), id, expires, signature);
  if (r.kind === "link_invalid")
    return problem(403, "This attachment link is invalid or has expired; read the message again for a new link.");
  if (r.kind === "gone") return problem(404, "The file is no longer available.");
  return new Response(r.bytes, {
    status: 200,
    headers: {
      "content-type": r.mimeType,
      "content-length": String(r.bytes.length),
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(r.fileName)}`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

/** `GET /api/ready`: 200 while the database and the limit store answer, else 503 with Retry-After. No auth; names no hosts or errors. */
export async function serveReadiness(): Promise<Response> {
  const r = await checkReadiness();
  return Response.json(
    { status: r.ready ? "ready" : "unavailable", checks: r.checks },
    {
      status: r.ready ? 200 : 503,
      headers: r.ready ? { "cache-control": "no-store" } : { "cache-control": "no-store", "retry-after": "5" },
    },
  );
}
