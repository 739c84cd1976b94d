import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { messageAttachments, messages } from "@/db/schema";
import { readStoredFile } from "../storage/file-store";
import { verifyAttachmentLink } from "./attachment-links";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function problem(status: number, detail: string): Response {
  return Response.json(
    { title: status === 403 ? "Link invalid or expired" : "Not found", status, detail },
    { status, headers: { "content-type": "application/problem+json", "cache-control": "no-store" } },
  );
}

/**
 * Answers a signed attachment link (`/files/attachments/{id}?expires=&signature=`): the file's bytes with
 * its MIME type, as a download, never cached. 403 for an expired or altered link; 404 when the file is
 * gone or its message was deleted (a deleted message's files stop being served at once).
 */
export async function serveAttachment(id: string, expires: string | null, signature: string | null): Promise<Response> {
  if (!UUID.test(id) || !verifyAttachmentLink(id, expires, signature)) return problem(403, "This attachment link is invalid or has expired; read the message again for a new link.");
  const db = await getDb();
  const [row] = await db
    .select({ fileName: messageAttachments.fileName, mimeType: messageAttachments.mimeType, storagePath: messageAttachments.storagePath, deletedAt: messages.deletedAt })
    .from(messageAttachments)
    .innerJoin(messages, eq(messages.id, messageAttachments.messageId))
    .where(eq(messageAttachments.id, id));
  const bytes = row?.storagePath && row.deletedAt === null ? await readStoredFile(row.storagePath) : null;
  if (!row || !bytes) return problem(404, "The file is no longer available.");
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      "content-type": row.mimeType,
      "content-length": String(bytes.length),
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(row.fileName)}`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
