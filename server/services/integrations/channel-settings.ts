import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels, integrations } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";

/** Largest `ai_daily_limit` of a channel (spec "Limits": default 200, maximum 10,000). */
export const AI_DAILY_LIMIT_MAX = 10_000;

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
  if (
    input.aiDailyLimit !== undefined &&
    (!Number.isInteger(input.aiDailyLimit) || input.aiDailyLimit < 0 || input.aiDailyLimit > AI_DAILY_LIMIT_MAX)
  )
    throw invalidField(
      "/ai_daily_limit",
      "out_of_range",
      `ai_daily_limit must be a whole number from 0 to ${AI_DAILY_LIMIT_MAX}.`,
    );
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
