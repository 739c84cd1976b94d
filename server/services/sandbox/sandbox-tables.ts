import { and, eq, getTableName, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import {
  analyticsDaily,
  analyticsDailyPages,
  analyticsVisitorDays,
  articles,
  editorialProfiles,
  generationJobs,
  publicationJobs,
  sites,
  contacts,
  conversations,
  crmStatusMaps,
  dashboardBlocks,
  disclosures,
  events,
  idempotencyRecords,
  integrationDailySpend,
  integrations,
  intakeEventIds,
  intakeEvents,
  leadChanges,
  leads,
  leadScores,
  messageAttachments,
  messages,
  operations,
  payments,
  products,
  requestLog,
  strategistActions,
  strategistReports,
  strategistSessions,
  strategistTopics,
  strategistTurns,
  usageDaily,
  walletLedger,
  wallets,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookSubscriptions,
} from "@/db/schema";
import type { OwnedTable } from "../tenant-scope";

/** One table that holds sandbox rows, and the condition that picks a tenant's sandbox rows in it. */
export interface SandboxTable {
  /** The table's name in the database. */
  name: string;
  table: PgTable;
  /** `tenant = tenantId and livemode = false` (through the integration where the table has no tenant column). */
  sandboxRows(tenantId: string): SQL;
}

const owned = (table: PgTable & OwnedTable): SandboxTable => ({
  name: getTableName(table),
  table,
  sandboxRows: (tenantId) => and(eq(table.tenantId, tenantId), eq(table.livemode, false)) as SQL,
});

/**
 * Every table with a `livemode` column (issue 69: every tenant-owned row the API reads or writes), in an
 * order that deletes children before their parents, so that no `on delete set null` rewrites a row about
 * to go and no cascade reaches further than the sandbox: attempts before their deliveries, deliveries
 * before subscriptions and events,
 * attachments and leads before messages, conversations and contacts, actions before sessions, payments
 * before the ledger rows they name, the ledger before its wallet, generation jobs before the topics, articles
 * and operations they name. A table added later with a `livemode`
 * column must be listed here (sandbox.int.test.ts compares this list with the database).
 */
export const SANDBOX_TABLES: readonly SandboxTable[] = [
  owned(webhookDeliveryAttempts),
  owned(webhookDeliveries),
  owned(webhookSubscriptions),
  {
    // A `webhook.test` of a live subscription recorded before issue 69 has `livemode` false (now it takes its
    // subscription's mode; only its envelope says false), and its delivery is live: such an event belongs to
    // the live journal and stays, or its live delivery would go with it (on delete cascade).
    name: getTableName(events),
    table: events,
    sandboxRows: (tenantId) =>
      and(
        eq(events.tenantId, tenantId),
        eq(events.livemode, false),
        sql`not exists (select 1 from ${webhookDeliveries} where ${webhookDeliveries.eventId} = ${events.id} and ${webhookDeliveries.livemode})`,
      ) as SQL,
  },
  owned(disclosures),
  owned(idempotencyRecords),
  {
    name: getTableName(requestLog),
    table: requestLog,
    sandboxRows: (tenantId) => and(eq(requestLog.tenantId, tenantId), eq(requestLog.livemode, false)) as SQL,
  },
  owned(usageDaily),
  // Event intake (issue 74): the sandbox's raw events (a reset is no retention: rows of one tenant's
  // sandbox, not whole days), their ids and the rollups made from them.
  owned(intakeEvents),
  owned(intakeEventIds),
  owned(analyticsDaily),
  owned(analyticsDailyPages),
  owned(analyticsVisitorDays),
  owned(messageAttachments),
  owned(leadScores),
  owned(leadChanges),
  owned(leads),
  owned(crmStatusMaps),
  owned(messages),
  owned(conversations),
  owned(contacts),
  owned(generationJobs),
  owned(editorialProfiles),
  owned(strategistActions),
  owned(strategistTurns),
  owned(strategistSessions),
  owned(strategistReports),
  owned(strategistTopics),
  owned(publicationJobs),
  owned(sites),
  owned(articles),
  owned(dashboardBlocks),
  owned(products),
  owned(payments),
  {
    // A test key of a tenant without the preview `test-mode` works in live data with free operations of
    // `livemode` false: an article generation of such a key has a live job, which names its operation and
    // stays, so its operation stays too (a strategist turn's likewise) (the job's foreign key lets neither go without the other).
    name: getTableName(operations),
    table: operations,
    sandboxRows: (tenantId) =>
      and(
        eq(operations.tenantId, tenantId),
        eq(operations.livemode, false),
        sql`not exists (select 1 from ${generationJobs} where ${generationJobs.operationId} = ${operations.id} and ${generationJobs.livemode})`,
        sql`not exists (select 1 from ${strategistTurns} where ${strategistTurns.operationId} = ${operations.id} and ${strategistTurns.livemode})`,
      ) as SQL,
  },
  owned(walletLedger),
  owned(wallets),
  {
    // Spend a day is kept per integration (no tenant column): the tenant's integrations name its rows.
    name: getTableName(integrationDailySpend),
    table: integrationDailySpend,
    sandboxRows: (tenantId) =>
      and(
        eq(integrationDailySpend.livemode, false),
        sql`${integrationDailySpend.integrationId} in (select ${integrations.id} from ${integrations} where ${integrations.tenantId} = ${tenantId})`,
      ) as SQL,
  },
];

/**
 * Deletes every sandbox row of the tenant (`livemode` false), table by table in {@link SANDBOX_TABLES}'
 * order, inside the caller's transaction `tx`. Every statement's condition holds `livemode = false`, so
 * no live row is deleted or changed.
 */
export async function clearSandbox(tx: Db, tenantId: string): Promise<void> {
  for (const t of SANDBOX_TABLES) await tx.delete(t.table).where(t.sandboxRows(tenantId));
}
