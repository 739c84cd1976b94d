import { and, desc, eq, lt, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels, integrations, operations, staffUsers } from "@/db/schema";
import { formatMinor } from "@/server/lib/money";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";

/** An operation as the console's Operations page shows it; money as decimal RUB strings. */
export interface OperationView {
  id: string;
  type: string;
  status: string;
  livemode: boolean;
  /** Charged cost; null while unfinished or when nothing was charged. */
  cost: string | null;
  /** The hold placed at creation. */
  hold: string;
  conversationId: string | null;
  /** The integration that started it; null for a staff member's (the console's Score button). */
  integrationName: string | null;
  /** The staff member who started it in the console (name, else email); null for an integration's. */
  staffName: string | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  completedAt: string | null;
}

/**
 * A page of the tenant's operations of the actor's mode, newest first, keyset on (created_at, id) (console
 * Operations page): live operations, or with the console's Test mode (`livemode` false) the test-mode ones
 * (the sandbox's, and those of test keys of a tenant without the preview).
 * @param after the `next` of the previous page, or null.
 */
export async function listTenantOperations(
  db: Db,
  actor: StaffActor,
  limit: number,
  after: { createdAt: string; id: string } | null,
): Promise<{ operations: OperationView[]; next: { createdAt: string; id: string } | null }> {
  const o = operations;
  const where = after
    ? and(
        ownedBy(o, actor),
        or(
          lt(o.createdAt, new Date(after.createdAt)),
          and(eq(o.createdAt, new Date(after.createdAt)), lt(o.id, after.id)),
        ),
      )
    : ownedBy(o, actor);
  const rows = await db
    .select({ op: o, integrationName: integrations.name, staffName: staffUsers.name, staffEmail: staffUsers.email })
    .from(o)
    .leftJoin(integrations, eq(integrations.id, o.integrationId))
    .leftJoin(staffUsers, eq(staffUsers.id, o.staffUserId))
    .where(where)
    .orderBy(desc(o.createdAt), desc(o.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]?.op;
  return {
    operations: page.map(({ op, integrationName, staffName, staffEmail }) => ({
      id: op.id,
      type: op.type,
      status: op.status,
      livemode: op.livemode,
      cost: op.chargedMinor === null ? null : formatMinor(op.chargedMinor),
      hold: formatMinor(op.holdMinor),
      conversationId: op.conversationId,
      integrationName,
      // A staff account deleted since keeps its operations (no foreign key): shown without a name.
      staffName: op.staffUserId ? staffName || staffEmail || "deleted account" : null,
      error: op.error ?? null,
      createdAt: op.createdAt.toISOString(),
      completedAt: op.completedAt ? op.completedAt.toISOString() : null,
    })),
    next: rows.length > limit && last ? { createdAt: last.createdAt.toISOString(), id: last.id } : null,
  };
}

/** The AI settings of the tenant's `api` channels, one per integration (console). */
export async function listChannelAi(
  db: Db,
  actor: StaffActor,
): Promise<{ integrationId: string; integrationName: string; aiDailyLimit: number; aiEnabled: boolean }[]> {
  const rows = await db
    .select({
      integrationId: integrations.id,
      integrationName: integrations.name,
      aiDailyLimit: channels.aiDailyLimit,
      aiEnabled: channels.aiEnabled,
    })
    .from(channels)
    .innerJoin(integrations, eq(integrations.id, channels.integrationId))
    .where(and(eq(channels.tenantId, actor.tenantId), eq(channels.type, "api")))
    .orderBy(integrations.name);
  return rows;
}
