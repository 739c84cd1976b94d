import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { messageAttachments, messages } from "@/db/schema";
import { readStoredFile } from "../storage/file-store";
import { verifyAttachmentLink } from "./attachment-links";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a signed attachment link leads to: the file, a refused link, or nothing any more. */
export type AttachmentDownload =
  | { kind: "file"; bytes: Uint8Array<ArrayBuffer>; fileName: string; mimeType: string }
  | { kind: "link_invalid" }
  | { kind: "gone" };

/**
 * Resolves a signed attachment link (`/files/attachments/{id}?expires=&signature=`, spec "Message":
 * temporary signed links). The signature is the permission, so no actor and no mode (a link is only ever
 * made for a message its reader could see, in its own mode): `link_invalid` for an expired or
 * altered link; `gone` when the file is missing or its message was deleted (a deleted message's files
 * stop being served at once).
 */
export async function downloadAttachment(
  db: Db,
  id: string,
  expires: string | null,
  signature: string | null,
): Promise<AttachmentDownload> {
  if (!UUID.test(id) || !verifyAttachmentLink(id, expires, signature)) return { kind: "link_invalid" };
  const [row] = await db
    .select({
      fileName: messageAttachments.fileName,
      mimeType: messageAttachments.mimeType,
      storagePath: messageAttachments.storagePath,
      deletedAt: messages.deletedAt,
    })
    .from(messageAttachments)
    // The file's message must be of the file's tenant and mode (rows join only rows of their own mode).
    .innerJoin(
      messages,
      and(
        eq(messages.id, messageAttachments.messageId),
        eq(messages.tenantId, messageAttachments.tenantId),
        eq(messages.livemode, messageAttachments.livemode),
      ),
    )
    .where(eq(messageAttachments.id, id));
  const bytes = row?.storagePath && row.deletedAt === null ? await readStoredFile(row.storagePath) : null;
  if (!row || !bytes) return { kind: "gone" };
  return { kind: "file", bytes: new Uint8Array(bytes), fileName: row.fileName, mimeType: row.mimeType };
}
