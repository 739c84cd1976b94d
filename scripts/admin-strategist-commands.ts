import { getTenant } from "@/server/services/tenants/tenants";
import { writeReport, type RegularReportType } from "@/server/services/strategist/report-writer";
import { need, usageError, type Command, type Opts } from "./admin-args";

/** `--type` (default daily). @throws UsageError for anything but daily or weekly. */
function reportType(o: Opts): RegularReportType {
  const v = o.type ?? "daily";
  if (v !== "daily" && v !== "weekly") throw usageError("--type must be daily or weekly");
  return v;
}

/** `--date` (default today, UTC). @throws UsageError for anything but a real date YYYY-MM-DD. */
function reportDate(o: Opts): string {
  const v = o.date;
  if (v === undefined) return new Date().toISOString().slice(0, 10);
  const ok =
    typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
  if (!ok) throw usageError("--date must be a real date YYYY-MM-DD");
  return v;
}

/**
 * `strategist:report`: writes the tenant's regular report of a type and date now (issue 73 item 4), as the
 * daily job does (report-writer.ts `writeReport`: once per tenant, mode, type and date; a repeat answers
 * the report already written with `created: false`). `--test` writes it in the tenant's sandbox.
 * @returns `{report_id, created, tenant_id, report_type, report_date, livemode}`
 * @throws ApiError `not_found` for an unknown tenant; UsageError for a bad type or date
 */
export async function strategistReportCommand(
  db: Parameters<Command["run"]>[0],
  o: Opts,
): Promise<Record<string, unknown>> {
  const tenantId = need(o, "tenant");
  const type = reportType(o);
  const date = reportDate(o);
  await getTenant(db, tenantId);
  const livemode = o.test !== true;
  const r = await writeReport(db, { tenantId, livemode }, { type, date });
  return { report_id: r.id, created: r.created, tenant_id: tenantId, report_type: type, report_date: date, livemode };
}

/** Commands of the strategist (issue 73). */
export const STRATEGIST_COMMANDS: Record<string, Command> = {
  "strategist:report": {
    usage:
      "--tenant ID [--type daily|weekly (default daily)] [--date YYYY-MM-DD (default today, UTC)] [--test (the sandbox)] (writes the report now; once per type and date)",
    run: strategistReportCommand,
  },
};
