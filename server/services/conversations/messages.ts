import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { isoText } from "@/db/iso-text";
import { literalLimit, preparedRows } from "@/db/prepared";
import { conversations, messageAttachments, messages } from "@/db/schema";
import { notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import type { Message } from "@/server/schemas/conversations";
import type { Actor } from "../actor";
import { signAttachmentLink } from "./attachment-links";
import { OWNER_PLACEHOLDERS, ownerValues, visibleTo } from "./conversations";

type MessageRow = typeof messages.$inferSelect;

/** Keyset position of a message: (created_at ISO, id). */
export type MessagePosition = [string, string];

/** How long a deleted message is still returned as a tombstone, ms (spec "Limits": 30 days). */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A message as the page statement reads it ({@link listMessages}): the spec's names, `created_at` ISO Z, and
 * the message's first stored file (`attachment_*`, all null when it has none).
 */
interface MessagePageRow {
  id: string;
  conversation_id: string;
  sender: Message["sender"];
  content_type: Message["content_type"];
  content: string | null;
  deleted: boolean;
  created_at: string;
  attachment_id: string | null;
  attachment_file_name: string | null;
  attachment_content_type: string | null;
  /** bytes */
  attachment_size_bytes: number | null;
}

/** The page statement's one row for a visible conversation without messages on the page. */
type EmptyPageRow = { [K in keyof MessagePageRow]: null };

/**
 * The spec's Message. A deleted message is a tombstone: no text, no attachments. Only files in our storage
 * become (signed) attachments, at most one; a messenger's own file address (`external_url`) never leaves.
 */
function messageOf(r: MessagePageRow): Message {
  return {
    id: r.id,
    conversation_id: r.conversation_id,
    sender: r.sender,
    content_type: r.content_type,
    content: r.deleted ? null : r.content,
    attachments:
      r.deleted || r.attachment_id === null
        ? []
        : [
            {
              id: r.attachment_id,
              file_name: r.attachment_file_name!,
              content_type: r.attachment_content_type!,
              size_bytes: r.attachment_size_bytes!,
              ...signAttachmentLink(r.attachment_id),
            },
          ],
    deleted: r.deleted,
    created_at: r.created_at,
  };
}

/** A messages row (drizzle's) and its files → the spec's Message, as {@link messageOf}. */
export function toMessage(m: MessageRow, files: (typeof messageAttachments.$inferSelect)[]): Message {
  const file = files.find((f) => f.storagePath !== null);
  return messageOf({
    id: m.id,
    conversation_id: m.conversationId,
    sender: m.sender,
    content_type: m.contentType,
    content: m.content,
    deleted: m.deletedAt !== null,
    created_at: m.createdAt.toISOString(),
    attachment_id: file?.id ?? null,
    attachment_file_name: file?.fileName ?? null,
    attachment_content_type: file?.mimeType ?? null,
    attachment_size_bytes: file?.sizeBytes ?? null,
  });
}

/**
 * One page of `GET /conversations/{id}/messages`: oldest first by `(created_at, id)`, strictly after
 * `after`. Internal operator notes never appear. Deleted messages appear only with `includeDeleted`, as
 * tombstones, while their deletion is under 30 days old.
 * @throws ApiError 404 `not_found` when the conversation is missing, foreign, of the other mode, or a
 *   mailbox / cabinet one.
 */
export async function listMessages(
  db: Db,
  actor: Actor,
  conversationId: string,
  q: { limit: number; includeDeleted: boolean; after?: MessagePosition },
): Promise<{ messages: Message[]; next: MessagePosition | null }> {
  const shape = `messages:list:${q.includeDeleted}:${q.after !== undefined}:${q.limit + 1}`;
  const found = await preparedRows<MessagePageRow | EmptyPageRow>(db, shape, () => {
    const c = conversations;
    const m = messages;
    const f = messageAttachments;
    const conds = [
      eq(m.tenantId, c.tenantId),
      eq(m.livemode, c.livemode),
      eq(m.conversationId, c.id),
      eq(m.internal, false),
      q.includeDeleted
        ? or(isNull(m.deletedAt), gt(m.deletedAt, sql`${sql.placeholder("tombstonesSince")}::timestamptz`))!
        : isNull(m.deletedAt),
    ];
    if (q.after)
      conds.push(
        sql`(${m.createdAt}, ${m.id}) > (${sql.placeholder("afterAt")}::timestamptz, ${sql.placeholder("afterId")}::uuid)`,
      );
    // One round trip a page: the visible conversation (no row: 404), the page's messages in a lateral
    // subquery (one row of nulls when there are none), and the first stored file of each message in a
    // lateral probe of the attachments' message index.
    return sql`select p.id, p.conversation_id, p.sender, p.content_type, p.content, p.deleted, p.created_at,
        p.attachment_id, p.attachment_file_name, p.attachment_content_type, p.attachment_size_bytes
      from ${c} left join lateral (
        select ${m.id} as id, ${m.conversationId} as conversation_id, ${m.sender} as sender,
          ${m.contentType} as content_type, ${m.content} as content, ${m.deletedAt} is not null as deleted,
          ${isoText(m.createdAt)} as created_at, ${m.createdAt} as sort_at, a.id as attachment_id,
          a.file_name as attachment_file_name, a.mime_type as attachment_content_type,
          a.size_bytes::float8 as attachment_size_bytes
        from ${m} left join lateral (
          select ${f.id} as id, ${f.fileName} as file_name, ${f.mimeType} as mime_type, ${f.sizeBytes} as size_bytes
          from ${f}
          where ${f.tenantId} = ${m.tenantId} and ${f.livemode} = ${m.livemode} and ${f.messageId} = ${m.id}
            and ${f.storagePath} is not null and ${m.deletedAt} is null
          order by ${f.position}, ${f.id} limit 1) a on true
        where ${and(...conds)} order by ${m.createdAt}, ${m.id} limit ${literalLimit(q.limit + 1)}) p on true
      where ${and(visibleTo(OWNER_PLACEHOLDERS), eq(c.id, sql.placeholder("conversation")))}
      order by p.sort_at, p.id`;
  }).execute({
    ...ownerValues(actor),
    conversation: conversationId,
    tombstonesSince: new Date(nowMs() - TOMBSTONE_RETENTION_MS).toISOString(),
    afterAt: q.after?.[0],
    afterId: q.after?.[1],
  });
  if (found.length === 0) throw notFound("Conversation");
  const rows = found.filter((r): r is MessagePageRow => r.id !== null);
  const page = rows.slice(0, q.limit).map(messageOf);
  const last = page[page.length - 1];
  return { messages: page, next: rows.length > q.limit && last ? [last.created_at, last.id] : null };
}
