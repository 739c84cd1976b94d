import { and, asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels, integrations } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";

/** Largest `ai_daily_limit` of a channel (spec "Limits": default 200, maximum 10,000). */
export const AI_DAILY_LIMIT_MAX = 10_000;

/** @throws ApiError `validation_failed` on `/ai_daily_limit` unless absent or a whole number 0..{@link AI_DAILY_LIMIT_MAX}. */
function checkAiDailyLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0 || limit > AI_DAILY_LIMIT_MAX))
    throw invalidField(
      "/ai_daily_limit",
      "out_of_range",
      `ai_daily_limit must be a whole number from 0 to ${AI_DAILY_LIMIT_MAX}.`,
    );
}

/** AI settings of an integration's `api` channel. */
export interface ChannelAiSettings {
  channel_id: string;
  ai_daily_limit: number;
  ai_enabled: boolean;
}

/**
 * Changes the AI settings of an integration's `api` channel (`npm run admin -- channel:set`, the
 * console): `aiDailyLimit` 0 to 10,000 AI replies a UTC day (then `daily_limit`), `aiEnabled` false
 * makes every customer message `no_agent`. The channel is made when missing.
 * @throws ApiError `not_found` (no integration); `validation_failed` on `/ai_daily_limit`.
 */
export async function setChannelAi(
  db: Db,
  integrationId: string,
  input: { aiDailyLimit?: number; aiEnabled?: boolean },
  /** When given (the console), the integration must belong to this tenant, else `not_found`. */
  tenantId?: string,
): Promise<ChannelAiSettings> {
  checkAiDailyLimit(input.aiDailyLimit);
  const [i] = await db.select().from(integrations).where(eq(integrations.id, integrationId));
  if (!i || (tenantId !== undefined && i.tenantId !== tenantId)) throw notFound("Integration");
  await db
    .insert(channels)
    .values({ tenantId: i.tenantId, type: "api", name: "API", integrationId })
    .onConflictDoNothing();
  const patch: Partial<typeof channels.$inferInsert> = {};
  if (input.aiDailyLimit !== undefined) patch.aiDailyLimit = input.aiDailyLimit;
  if (input.aiEnabled !== undefined) patch.aiEnabled = input.aiEnabled;
  const where = and(eq(channels.integrationId, integrationId), eq(channels.type, "api"));
  const [c] = Object.keys(patch).length
    ? await db.update(channels).set(patch).where(where).returning()
    : await db.select().from(channels).where(where);
  return { channel_id: c!.id, ai_daily_limit: c!.aiDailyLimit, ai_enabled: c!.aiEnabled };
}

/** A channel of the tenant as the console's Settings list it. */
export interface ChannelView {
  id: string;
  /** api, website, telegram, vk, max, ... */
  type: string;
  name: string;
  /** The integration of an `api` channel; null for the other types. */
  integrationId: string | null;
  integrationName: string | null;
  aiDailyLimit: number;
  aiEnabled: boolean;
}

/** Every channel of the tenant (all types), by type and name. */
export async function listTenantChannels(db: Db, tenantId: string): Promise<ChannelView[]> {
  return db
    .select({
      id: channels.id,
      type: channels.type,
      name: channels.name,
      integrationId: channels.integrationId,
      integrationName: integrations.name,
      aiDailyLimit: channels.aiDailyLimit,
      aiEnabled: channels.aiEnabled,
    })
    .from(channels)
    .leftJoin(integrations, eq(integrations.id, channels.integrationId))
    .where(eq(channels.tenantId, tenantId))
    .orderBy(asc(channels.type), asc(channels.name), asc(channels.id));
}

/**
 * Changes the AI settings of one channel of the tenant by its id (the console's Settings): `aiDailyLimit`
 * 0 to 10,000 AI replies a UTC day (spec "Limits"), `aiEnabled` false makes every customer message of the
 * channel `no_agent`. Omitted fields stay as they are.
 * @throws ApiError `not_found` (also another tenant's channel); `validation_failed` on `/ai_daily_limit`.
 */
export async function setTenantChannelAi(
  db: Db,
  tenantId: string,
  channelId: string,
  input: { aiDailyLimit?: number; aiEnabled?: boolean },
): Promise<ChannelAiSettings> {
  checkAiDailyLimit(input.aiDailyLimit);
  const patch: Partial<typeof channels.$inferInsert> = {};
  if (input.aiDailyLimit !== undefined) patch.aiDailyLimit = input.aiDailyLimit;
  if (input.aiEnabled !== undefined) patch.aiEnabled = input.aiEnabled;
  const where = and(eq(channels.id, channelId), eq(channels.tenantId, tenantId));
  const [c] = Object.keys(patch).length
    ? await db.update(channels).set(patch).where(where).returning()
    : await db.select().from(channels).where(where);
  if (!c) throw notFound("Channel");
  return { channel_id: c.id, ai_daily_limit: c.aiDailyLimit, ai_enabled: c.aiEnabled };
}
