import { and, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { dashboardBlocks } from "@/db/schema";
import { ApiError } from "@/server/errors";
import {
  DASHBOARD_BLOCKS,
  type DashboardBlock,
  type DashboardBlockName,
  type DashboardOverview,
} from "@/server/schemas/dashboards";
import type { IntegrationActor } from "../actor";
import { INTAKE_BLOCKS, intakeBlocks, type IntakeBlockName } from "../analytics/overview-blocks";
import { overviewPeriod } from "../analytics/period";
import { ownedBy } from "../tenant-scope";

/** Seconds a client should wait before asking again when a block's source fails. */
export const SOURCE_RETRY_AFTER_S = 60;

export { overviewPeriod };

/**
 * `GET /dashboards/overview`: the requested blocks (default all eleven) of the actor's tenant and mode
 * (tenant-scope.ts; the sandbox has its own blocks) as their sources last produced them,
 * keyed by name in the spec's order; a block without a row is `not_connected` with empty `data_as_of`.
 * With `opts.intake` (the tenant has the preview `event-intake`, issue 74 item 3) the `kpi`, `funnel` and
 * `popular_pages` blocks come from intake's daily rollups instead (../analytics/overview-blocks.ts).
 * @throws ApiError 503 `service_unavailable` (Retry-After) when any requested block's source is failing now:
 *   a failing source is never shown as an empty block.
 */
export async function getOverview(
  db: Db,
  actor: IntegrationActor,
  q: { from?: string; to?: string; blocks?: DashboardBlockName[] },
  opts: { intake?: boolean } = {},
): Promise<DashboardOverview> {
  const { from, to } = overviewPeriod(q);
  const names = q.blocks ?? [...DASHBOARD_BLOCKS];
  const fromIntake = opts.intake
    ? names.filter((n): n is IntakeBlockName => (INTAKE_BLOCKS as readonly string[]).includes(n))
    : [];
  const stored = names.filter((n) => !(fromIntake as string[]).includes(n));
  const rows = stored.length
    ? await db
        .select()
        .from(dashboardBlocks)
        .where(and(ownedBy(dashboardBlocks, actor), inArray(dashboardBlocks.block, stored)))
    : [];
  if (rows.some((r) => r.sourceError !== null)) {
    throw new ApiError(
      "service_unavailable",
      "A data source of the dashboard is failing; try again later.",
      {},
      { "Retry-After": String(SOURCE_RETRY_AFTER_S) },
    );
  }
  const byName = new Map(rows.map((r) => [r.block, r]));
  const computed: Partial<Record<DashboardBlockName, DashboardBlock>> = await intakeBlocks(
    db,
    actor,
    fromIntake,
    from,
    to,
  );
  const blocks: Partial<Record<DashboardBlockName, DashboardBlock>> = {};
  for (const name of names) {
    const c = computed[name];
    if (c) {
      blocks[name] = c;
      continue;
    }
    const r = byName.get(name);
    if (!r) {
      blocks[name] = { availability: "not_connected", data_as_of: {} };
      continue;
    }
    // Payload first, so a payload field can never overwrite the three fields the spec defines.
    const block: DashboardBlock = {
      ...(r.payload ?? {}),
      availability: r.availability as DashboardBlock["availability"],
      data_as_of: r.dataAsOf,
    };
    if (r.reason !== null) block.reason = r.reason;
    else delete block.reason;
    blocks[name] = block;
  }
  return { data: { from, to, blocks } };
}
