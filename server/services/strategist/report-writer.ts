import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistReports, tenants } from "@/db/schema";
import { now as clockNow } from "@/server/lib/clock";
import { log } from "@/server/log";
import { expireStrategistItems } from "./decisions";
import { recordEvent } from "../events/outbox";
import { ownedBy, ownerOf, type Owner } from "../tenant-scope";
import { OFFLINE_ANALYST_MODEL } from "./offline-analyst";
import { composeReport } from "./report-compose";
import { readStrategistFigures } from "./tenant-figures";

export { composeReport } from "./report-compose";
export type { ComposedReport, ReportAction, ReportFinding } from "./report-compose";

/** The report types a regular run writes (spec "Strategist resources"). */
export type RegularReportType = "daily" | "weekly";

/**
 * Class of the transaction lock that serializes writing one regular report (the second key hashes tenant,
 * mode, type and date): two runs at once (hourly local ticks, Inngest and the CLI) write it once.
 */
const REPORT_LOCK = 727_373;

/**
 * Writes the tenant's regular `type` report of `date` (YYYY-MM-DD) in `owner`'s mode, once (issue 73 item 4):
 * in one transaction, under an advisory lock of that tenant, mode, type and date, it answers the regular
 * report already written (created false), or reads the figures (tenant-figures.ts), composes the report
 * (report-compose.ts), stores it (run_kind `regular`, model `offline-analyst-1`, cost 0, delivered now,
 * the figures as its internal snapshot) and records `strategist.report.ready` with
 * `{type: "strategist_report", report_id}` in the same transaction.
 * @returns the report's id and whether this call wrote it
 */
export async function writeReport(
  db: Db,
  owner: Owner,
  opts: { type: RegularReportType; date: string },
): Promise<{ id: string; created: boolean }> {
  const o = ownerOf(owner);
  return db.transaction(async (txn) => {
    const tx = txn as unknown as Db;
    await tx.execute(
      sql`select pg_advisory_xact_lock(${REPORT_LOCK}, hashtext(${`${o.tenantId}:${o.livemode}:${opts.type}:${opts.date}`}))`,
    );
    const [existing] = await tx
      .select({ id: strategistReports.id })
      .from(strategistReports)
      .where(
        and(
          ownedBy(strategistReports, o),
          eq(strategistReports.runKind, "regular"),
          eq(strategistReports.reportType, opts.type),
          eq(strategistReports.reportDate, opts.date),
        ),
      )
      .limit(1);
    if (existing) return { id: existing.id, created: false };
    const figures = await readStrategistFigures(tx, o);
    const r = composeReport(figures, opts.type);
    const [row] = await tx
      .insert(strategistReports)
      .values({
        ...o,
        reportDate: opts.date,
        reportType: opts.type,
        runKind: "regular",
        summaryText: r.summaryText,
        dataAsOf: r.dataAsOf,
        highlights: r.highlights,
        concerns: r.concerns,
        actions: r.actions,
        evidence: r.evidence,
        snapshot: figures,
        model: OFFLINE_ANALYST_MODEL,
        costMinor: 0n,
        deliveredAt: clockNow(),
      })
      .returning({ id: strategistReports.id });
    await recordEvent(tx, {
      tenantId: o.tenantId,
      livemode: o.livemode,
      type: "strategist.report.ready",
      data: { type: "strategist_report", report_id: row!.id },
    });
    return { id: row!.id, created: true };
  });
}

/** The UTC date of `at`, YYYY-MM-DD. */
const utcDate = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The daily strategist job (issue 73 item 4; local schedule and the Inngest cron): for every active tenant
 * with the preview `strategist`, in live mode and, with the preview `test-mode`, in its sandbox too, writes
 * the `daily` report of `now`'s UTC date and, on a Monday (UTC), the `weekly` one ({@link writeReport}:
 * idempotent, so hourly runs write each once). `now` defaults to the clock's (server/lib/clock.ts). A tenant whose report fails is logged and the others go on.
 * Before the reports, the tenants' decisions that waited too long expire (decisions.ts
 * `expireStrategistItems`: actions 7 days old, topics past `expires_at`; issue 73 item 1).
 * @returns how many reports this run wrote, and how many actions and topics it expired
 */
export async function runStrategistReports(
  db: Db,
  now: Date = clockNow(),
): Promise<{ reports: number; expired: { actions: number; topics: number } }> {
  const date = utcDate(now);
  const types: RegularReportType[] = now.getUTCDay() === 1 ? ["daily", "weekly"] : ["daily"];
  const rows = await db
    .select({ id: tenants.id, previews: tenants.previews })
    .from(tenants)
    .where(and(eq(tenants.status, "active"), sql`'strategist' = any(${tenants.previews})`));
  // Decisions that waited too long expire first, so the reports count what is really open.
  const expired = await expireStrategistItems(
    db,
    rows.map((t) => t.id),
    now.getTime(),
  );
  let reports = 0;
  for (const t of rows) {
    const modes = t.previews.includes("test-mode") ? [true, false] : [true];
    for (const livemode of modes)
      for (const type of types) {
        try {
          if ((await writeReport(db, { tenantId: t.id, livemode }, { type, date })).created) reports++;
        } catch (err) {
          log().error({ err, tenant_id: t.id, livemode, report_type: type }, "strategist report failed");
        }
      }
  }
  return { reports, expired };
}
