import { and, asc, eq, gt, type Placeholder, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { preparedQuery } from "@/db/prepared";
import { conversations } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { Conversation } from "@/server/schemas/conversations";
import type { Actor } from "../actor";
import { livemodeOf, ownedBy } from "../tenant-scope";

type ConversationRow = typeof conversations.$inferSelect;

/** Keyset position of a conversation in list order: (updated_at ISO, id). */
export type ConversationPosition = [string, string];

/** The owner of a prepared statement's rows: placeholders for the tenant and the mode (`livemode`). */
export interface OwnerPlaceholders {
  tenantId: Placeholder;
  livemode: Placeholder;
}

/**
 * Conversations the API may show: the actor's own (its tenant and mode, tenant-scope.ts) and of kind
 * `customer`. Personal-mailbox and student-cabinet conversations never appear anywhere (spec general
 * fact 6), so they read as missing, as do another tenant's and those of the other mode (live or sandbox).
 * A prepared statement passes {@link OwnerPlaceholders} and binds them to the actor's tenant and mode.
 */
export function visibleTo(actor: Actor | OwnerPlaceholders) {
  const owner =
    "via" in actor
      ? ownedBy(conversations, actor)
      : and(eq(conversations.tenantId, actor.tenantId), eq(conversations.livemode, actor.livemode));
  return and(owner, eq(conversations.kind, "customer"));
}

/** The values of {@link OwnerPlaceholders} named `tenant` and `livemode` for `actor`. */
export function ownerValues(actor: Actor): { tenant: string; livemode: boolean } {
  return { tenant: actor.tenantId, livemode: livemodeOf(actor) };
}

/** {@link OwnerPlaceholders} named `tenant` and `livemode`, as {@link ownerValues} fills them. */
export const OWNER_PLACEHOLDERS: OwnerPlaceholders = {
  tenantId: sql.placeholder("tenant"),
  livemode: sql.placeholder("livemode"),
};

/** Row → the spec's Conversation; `external_customer_id` only for channel `api` (null for messengers). */
export function toConversation(c: ConversationRow): Conversation {
  return {
    id: c.id,
    channel: c.channelType,
    contact_id: c.contactId,
    external_customer_id: c.channelType === "api" ? c.externalCustomerId : null,
    status: c.status,
    mode: c.mode === "operator" ? "operator" : "ai",
    language: c.language,
    created_at: c.createdAt ? c.createdAt.toISOString() : null,
    updated_at: c.updatedAt.toISOString(),
  };
}

/** Filters of `GET /conversations`. `updatedAfter` is strict: a conversation updated exactly then is excluded. */
export interface ConversationFilters {
  channel?: string;
  status?: string;
  mode?: "ai" | "operator";
  updatedAfter?: Date;
}

/**
 * One page of `GET /conversations`: ascending by `(updated_at, id)`, strictly after `after`.
 * @returns the page and the position of its last row when more rows follow (else null).
 */
export async function listConversations(
  db: Db,
  actor: Actor,
  q: ConversationFilters & { limit: number; after?: ConversationPosition },
): Promise<{ conversations: Conversation[]; next: ConversationPosition | null }> {
  const c = conversations;
  const conds = [visibleTo(actor)];
  if (q.channel !== undefined) conds.push(eq(c.channelType, q.channel));
  if (q.status !== undefined) conds.push(eq(c.status, q.status));
  if (q.mode !== undefined) conds.push(eq(c.mode, q.mode));
  if (q.updatedAfter) conds.push(gt(c.updatedAt, q.updatedAfter));
  if (q.after) conds.push(sql`(${c.updatedAt}, ${c.id}) > (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`);
  const rows = await db
    .select()
    .from(c)
    .where(and(...conds))
    .orderBy(asc(c.updatedAt), asc(c.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    conversations: page.map(toConversation),
    next: rows.length > q.limit && last ? [last.updatedAt.toISOString(), last.id] : null,
  };
}

/**
 * A visible conversation row of the actor's tenant and mode.
 * @throws ApiError 404 `not_found` when missing, of another tenant or mode, or a mailbox / cabinet conversation.
 */
export async function findConversation(db: Db, actor: Actor, id: string, lock = false): Promise<ConversationRow> {
  const [row] = lock
    ? await db
        .select()
        .from(conversations)
        .where(and(visibleTo(actor), eq(conversations.id, id)))
        .for("update")
    : await preparedQuery(db, "conversations:find", (d) =>
        d
          .select()
          .from(conversations)
          .where(and(visibleTo(OWNER_PLACEHOLDERS), eq(conversations.id, sql.placeholder("id")))),
      ).execute({ ...ownerValues(actor), id });
  if (!row) throw notFound("Conversation");
  return row;
}

/** `GET /conversations/{id}`. @throws ApiError 404 as {@link findConversation}. */
export async function getConversation(db: Db, actor: Actor, id: string): Promise<Conversation> {
  return toConversation(await findConversation(db, actor, id));
}
