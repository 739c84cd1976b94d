import { and, asc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { literalLimit, preparedQuery } from "@/db/prepared";
import { messageAttachments, messages } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import type { Attachment, Message } from "@/server/schemas/conversations";
import type { Actor } from "../actor";
import { signAttachmentLink } from "./attachment-links";
import { findConversation } from "./conversations";

type MessageRow = typeof messages.$inferSelect;

/** Keyset position of a message: (created_at ISO, id). */
export type MessagePosition = [string, string];

/** How long a deleted message is still returned as a tombstone, ms (spec "Limits": 30 days). */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Row → the spec's Message. A deleted message is a tombstone: no text, no attachments. Only files in
 * our storage become (signed) attachments; a messenger's own file address (`external_url`) never leaves.
 */
export function toMessage(m: MessageRow, files: (typeof messageAttachments.$inferSelect)[]): Message {
  const deleted = m.deletedAt !== null;
  const attachments: Attachment[] = deleted
    ? []
    : files
        .filter((f) => f.storagePath !== null)
        .slice(0, 1)
        .map((f) => ({
          id: f.id,
          file_name: f.fileName,
          content_type: f.mimeType,
          size_bytes: f.sizeBytes,
          ...signAttachmentLink(f.id),
        }));
  return {
    id: m.id,
    conversation_id: m.conversationId,
    sender: m.sender,
    content_type: m.contentType,
    content: deleted ? null : m.content,
    attachments,
    deleted,
    created_at: m.createdAt.toISOString(),
  };
}

/**
 * One page of `GET /conversations/{id}/messages`: oldest first by `(created_at, id)`, strictly after
 * `after`. Internal operator notes never appear. Deleted messages appear only with `includeDeleted`, as
 * tombstones, while their deletion is under 30 days old.
 * @throws ApiError 404 `not_found` when the conversation is missing, foreign, or a mailbox / cabinet one.
 */
export async function listMessages(
  db: Db,
  actor: Actor,
  conversationId: string,
  q: { limit: number; includeDeleted: boolean; after?: MessagePosition },
): Promise<{ messages: Message[]; next: MessagePosition | null }> {
  await findConversation(db, actor, conversationId);
  const shape = `messages:list:${q.includeDeleted}:${q.after !== undefined}:${q.limit + 1}`;
  const rows = await preparedQuery(db, shape, (d) => {
    const m = messages;
    const conds = [
      eq(m.tenantId, sql.placeholder("tenant")),
      eq(m.conversationId, sql.placeholder("conversation")),
      eq(m.internal, false),
      q.includeDeleted
        ? or(isNull(m.deletedAt), gt(m.deletedAt, sql`${sql.placeholder("tombstonesSince")}::timestamptz`))!
        : isNull(m.deletedAt),
    ];
    if (q.after)
      conds.push(
        sql`(${m.createdAt}, ${m.id}) > (${sql.placeholder("afterAt")}::timestamptz, ${sql.placeholder("afterId")}::uuid)`,
      );
    return d
      .select()
      .from(m)
      .where(and(...conds))
      .orderBy(asc(m.createdAt), asc(m.id))
      .limit(literalLimit(q.limit + 1));
  }).execute({
    tenant: actor.tenantId,
    conversation: conversationId,
    tombstonesSince: new Date(nowMs() - TOMBSTONE_RETENTION_MS).toISOString(),
    afterAt: q.after?.[0],
    afterId: q.after?.[1],
  });
  const page = rows.slice(0, q.limit);
  const withFiles = page.filter((r) => r.deletedAt === null).map((r) => r.id);
  const files = withFiles.length
    ? await preparedQuery(db, "messages:attachments", (d) =>
        d
          .select()
          .from(messageAttachments)
          .where(
            and(
              eq(messageAttachments.tenantId, sql.placeholder("tenant")),
              // One statement for any number of messages: the ids travel as one array parameter.
              sql`${messageAttachments.messageId} = any(${sql.placeholder("messageIds")}::uuid[])`,
              isNotNull(messageAttachments.storagePath),
            ),
          )
          .orderBy(asc(messageAttachments.position)),
      ).execute({ tenant: actor.tenantId, messageIds: withFiles })
    : [];
  const last = page[page.length - 1];
  return {
    messages: page.map((r) =>
      toMessage(
        r,
        files.filter((f) => f.messageId === r.id),
      ),
    ),
    next: rows.length > q.limit && last ? [last.createdAt.toISOString(), last.id] : null,
  };
}
