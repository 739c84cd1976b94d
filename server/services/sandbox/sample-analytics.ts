import { randomInt } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { analyticsVisitorDays, intakeEventIds, intakeEvents, requestLog, usageDaily } from "@/db/schema";
import { seedSampleAnalytics } from "../analytics/sample-analytics";
import type { SandboxContext } from "./sample-context";

/**
 * Seeds the sandbox's analytics inside the caller's transaction (issue 74, test mode): the same sample as
 * the demo's live analytics (server/services/analytics/sample-analytics.ts: 30 days of rollups, the live
 * list's 12 received events), with what intake and the rollup job keep beside them: the accepted events'
 * ids (so a test key re-sending `pv-1001` is answered `duplicate`), their visitors' days, and the sample
 * API requests' daily counts (usage_daily) from the sandbox's request log seeded before this runs.
 * The sample's leads are the sandbox's first two, when there are any.
 */
export async function seedSandboxAnalytics(tx: Db, ctx: SandboxContext): Promise<void> {
  const o = ctx.owner;
  const leadIds = ctx.samples.leads.slice(0, 2).map((l) => l.id);
  // A fresh draw each time (the rollup rows have no id or time of their own): a reset gives new figures.
  await seedSampleAnalytics(tx, o, ctx.now, leadIds, randomInt(1, 2_000_000_000));
  const accepted = and(
    eq(intakeEvents.tenantId, o.tenantId),
    eq(intakeEvents.livemode, false),
    eq(intakeEvents.status, "accepted"),
  );
  await tx.execute(sql`
    insert into ${intakeEventIds} (tenant_id, livemode, event_id, received_at)
    select tenant_id, livemode, event_id, min(received_at) from ${intakeEvents}
    where ${accepted} and event_id is not null group by 1, 2, 3
    on conflict do nothing`);
  await tx.execute(sql`
    insert into ${analyticsVisitorDays} (tenant_id, livemode, day, visitor_key)
    select distinct tenant_id, livemode, (occurred_at at time zone 'UTC')::date, visitor_key from ${intakeEvents}
    where ${accepted} and visitor_key is not null and occurred_at is not null
    on conflict do nothing`);
  await tx.execute(sql`
    insert into ${usageDaily} (tenant_id, livemode, day, integration_id, status_class, requests)
    select tenant_id, livemode, (created_at at time zone 'UTC')::date, integration_id, (status / 100)::smallint, count(*)::int
    from ${requestLog}
    where tenant_id = ${o.tenantId} and livemode = false and integration_id is not null
    group by 1, 2, 3, 4, 5
    on conflict (tenant_id, livemode, day, integration_id, status_class) do update set requests = ${usageDaily.requests} + excluded.requests`);
}
