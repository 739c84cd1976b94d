import { and, desc, eq, inArray, isNotNull, isNull, notInArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  apiKeys,
  articles,
  contacts,
  conversations,
  leads,
  messages,
  operations,
  strategistReports,
  strategistSessions,
  tenants,
  webhookSubscriptions,
} from "@/db/schema";
import type { IntegrationActor } from "../actor";
import { ownedBy } from "../tenant-scope";

/** Conversations whose ids never leave the platform (spec general fact 6), so no sample names one. */
const HIDDEN_KINDS = ["personal_mailbox", "student_cabinet"];

/**
 * The rows of the actor's own world (tenant and mode: for the test helpers, the tenant's sandbox) that a
 * sample event names, newest first, so that a sample event points at something a test key can read
 * (`GET /conversations/{id}`, `GET /leads/{id}`, ...). Each read is one query of at most one row, scoped by
 * `ownedBy`; each returns undefined when the world has no such row yet (the caller then uses fresh ids).
 * Rows owned by an integration (operations, strategist sessions, subscriptions) are the calling integration's.
 */
export function sampleSources(db: Db, actor: IntegrationActor) {
  return {
    /** The newest conversation of a customer. */
    conversation: async () =>
      (
        await db
          .select({ id: conversations.id })
          .from(conversations)
          .where(and(ownedBy(conversations, actor), notInArray(conversations.kind, HIDDEN_KINDS)))
          .orderBy(desc(conversations.updatedAt), desc(conversations.id))
          .limit(1)
      )[0],

    /** The newest visible message (no operator note, no tombstone) of a customer's conversation. */
    message: async () =>
      (
        await db
          .select({
            id: messages.id,
            conversationId: messages.conversationId,
            sender: messages.sender,
            aiReplyStatus: messages.aiReplyStatus,
            aiReplyReason: messages.aiReplyReason,
          })
          .from(messages)
          .innerJoin(conversations, eq(conversations.id, messages.conversationId))
          .where(
            and(
              ownedBy(messages, actor),
              eq(messages.internal, false),
              isNull(messages.deletedAt),
              notInArray(conversations.kind, HIDDEN_KINDS),
            ),
          )
          .orderBy(desc(messages.createdAt), desc(messages.id))
          .limit(1)
      )[0],

    /** The newest lead that is not archived; with `withConversation`, one that has a conversation. */
    lead: async (withConversation = false) =>
      (
        await db
          .select({
            id: leads.id,
            version: leads.version,
            status: leads.status,
            contactId: leads.contactId,
            conversationId: leads.conversationId,
            score: leads.score,
          })
          .from(leads)
          .where(
            and(
              ownedBy(leads, actor),
              eq(leads.archived, false),
              withConversation ? isNotNull(leads.conversationId) : undefined,
            ),
          )
          .orderBy(desc(leads.updatedAt), desc(leads.id))
          .limit(1)
      )[0],

    /** The newest contact. */
    contact: async () =>
      (
        await db
          .select({ id: contacts.id })
          .from(contacts)
          .where(ownedBy(contacts, actor))
          .orderBy(desc(contacts.createdAt), desc(contacts.id))
          .limit(1)
      )[0],

    /** The newest article of the tenant's own blog; with `published`, a published one. */
    article: async (published = false) =>
      (
        await db
          .select({ id: articles.id, slug: articles.slug, publication: articles.publication })
          .from(articles)
          .where(
            and(
              ownedBy(articles, actor),
              eq(articles.blog, "tenant"),
              published ? eq(articles.status, "published") : undefined,
            ),
          )
          .orderBy(desc(articles.createdAt), desc(articles.id))
          .limit(1)
      )[0],

    /** The newest regular strategist report (creative runs are never shown). */
    report: async () =>
      (
        await db
          .select({ id: strategistReports.id })
          .from(strategistReports)
          .where(and(ownedBy(strategistReports, actor), eq(strategistReports.runKind, "regular")))
          .orderBy(desc(strategistReports.createdAt), desc(strategistReports.id))
          .limit(1)
      )[0],

    /** The newest strategist chat session of the calling integration. */
    session: async () =>
      (
        await db
          .select({ id: strategistSessions.id })
          .from(strategistSessions)
          .where(and(ownedBy(strategistSessions, actor), eq(strategistSessions.integrationId, actor.integrationId)))
          .orderBy(desc(strategistSessions.createdAt), desc(strategistSessions.id))
          .limit(1)
      )[0],

    /** The newest finished operation of the calling integration, optionally of one `type` and `status`. */
    operation: async (type?: string, status?: string) =>
      (
        await db
          .select()
          .from(operations)
          .where(
            and(
              ownedBy(operations, actor),
              eq(operations.integrationId, actor.integrationId),
              inArray(operations.status, status ? [status] : ["succeeded", "failed", "canceled"]),
              type ? eq(operations.type, type) : undefined,
            ),
          )
          .orderBy(desc(operations.createdAt), desc(operations.id))
          .limit(1)
      )[0],

    /** The newest webhook subscription of the calling integration. */
    subscription: async () =>
      (
        await db
          .select({ id: webhookSubscriptions.id })
          .from(webhookSubscriptions)
          .where(and(ownedBy(webhookSubscriptions, actor), eq(webhookSubscriptions.integrationId, actor.integrationId)))
          .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id))
          .limit(1)
      )[0],

    /** The calling key (keys belong to the tenant in both modes). */
    key: async () =>
      (
        await db
          .select({ keyId: apiKeys.keyId, expiresAt: apiKeys.expiresAt })
          .from(apiKeys)
          .where(and(eq(apiKeys.tenantId, actor.tenantId), eq(apiKeys.keyId, actor.keyId)))
      )[0],

    /** The tenant's CRM mode and main domain. */
    tenant: async () =>
      (
        await db
          .select({ crmMode: tenants.crmMode, mainDomain: tenants.mainDomain })
          .from(tenants)
          .where(eq(tenants.id, actor.tenantId))
      )[0],
  };
}

/** What {@link sampleSources} returns. */
export type SampleSources = ReturnType<typeof sampleSources>;
