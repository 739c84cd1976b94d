import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { integrations, usageDaily, walletLedger, webhookDeliveries } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import { formatMinor } from "@/server/lib/money";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";

/** Days the usage charts cover, today (UTC) included. */
export const USAGE_DAYS = 30;

/** API requests of one UTC day: by status class, and by integration (id → count). */
export interface RequestsDay {
  day: string;
  "2xx": number;
  "3xx": number;
  "4xx": number;
  "5xx": number;
  byIntegration: Record<string, number>;
}

/** Money spent on one UTC day: `charge` (paid operations) and `debit` (operator) ledger rows, RUB. */
export interface SpendDay {
  day: string;
  /** Kopecks, as a decimal integer string (bigint on the server). */
  minor: string;
  /** Rubles with two decimals, e.g. "12.34". */
  rub: string;
}

/** Webhook deliveries created on one UTC day, by the state they are in now. */
export interface DeliveriesDay {
  day: string;
  delivered: number;
  failed: number;
  dead: number;
}

/** What the console's usage page charts (issue 19 item 6). */
export interface UsageSummary {
  /** The UTC days covered, oldest first, `YYYY-MM-DD`. */
  days: string[];
  requests: RequestsDay[];
  /** Integrations that made requests in the window (names of deleted ones are "deleted integration"). */
  integrations: { id: string; name: string }[];
  spend: SpendDay[];
  deliveries: DeliveriesDay[];
}

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a timestamp column's UTC day. */
const utcDay = (column: unknown) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`;

/**
 * The tenant's usage over the last {@link USAGE_DAYS} UTC days, every day present (zeros where nothing
 * happened): API requests a day by status class and by integration (from `usage_daily`, the daily counts the
 * request-log writer adds in the statement that writes each batch, so the chart never scans the log;
 * issue 74 item 4), money spent a day (ledger `charge` and `debit`), and webhook deliveries a day by
 * their present state (`delivered`, `failed` = waiting for a retry, `dead`). Any member of the tenant
 * may read it; three grouped queries over the tenant's rows of the window.
 * Only rows of the actor's mode count (issue 69): live usage and spend never include the sandbox's test
 * requests, test charges or test deliveries; in the console's Test mode (`livemode` false) the sandbox's
 * own usage is shown instead.
 */
export async function usageSummary(db: Db, actor: StaffActor): Promise<UsageSummary> {
  const today = Math.floor(nowMs() / DAY_MS) * DAY_MS;
  const from = new Date(today - (USAGE_DAYS - 1) * DAY_MS);
  const days = Array.from({ length: USAGE_DAYS }, (_, i) =>
    new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10),
  );
  const t = actor.tenantId;
  const fromIso = from.toISOString();

  const [reqRows, spendRows, deliveryRows] = await Promise.all([
    db.execute(sql`
      select ${usageDaily.day}::text as day, ${usageDaily.statusClass}::int as cls,
             ${usageDaily.integrationId} as integration_id, ${usageDaily.requests} as n
      from ${usageDaily}
      where ${ownedBy(usageDaily, actor)} and ${usageDaily.day} >= ${fromIso.slice(0, 10)}::date`),
    db.execute(sql`
      select ${utcDay(walletLedger.createdAt)} as day, (-sum(${walletLedger.amountMinor}))::text as minor
      from ${walletLedger}
      where ${ownedBy(walletLedger, actor)} and ${walletLedger.createdAt} >= ${fromIso}::timestamptz
        and ${walletLedger.kind} in ('charge', 'debit')
      group by 1`),
    db.execute(sql`
      select ${utcDay(webhookDeliveries.createdAt)} as day, ${webhookDeliveries.state} as state, count(*)::int as n
      from ${webhookDeliveries}
      where ${ownedBy(webhookDeliveries, actor)} and ${webhookDeliveries.createdAt} >= ${fromIso}::timestamptz
        and ${webhookDeliveries.state} in ('delivered', 'failed', 'dead')
      group by 1, 2`),
  ]);

  const requests = new Map<string, RequestsDay>(
    days.map((day) => [day, { day, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, byIntegration: {} }]),
  );
  const integrationIds = new Set<string>();
  for (const r of rowsOf<{ day: string; cls: number; integration_id: string | null; n: number }>(reqRows)) {
    const d = requests.get(r.day);
    if (!d) continue;
    const cls = `${r.cls}xx` as "2xx" | "3xx" | "4xx" | "5xx";
    if (cls in d) d[cls] += Number(r.n);
    if (r.integration_id) {
      integrationIds.add(r.integration_id);
      d.byIntegration[r.integration_id] = (d.byIntegration[r.integration_id] ?? 0) + Number(r.n);
    }
  }
  const names = integrationIds.size
    ? rowsOf<{ id: string; name: string }>(
        await db.execute(
          sql`select ${integrations.id} as id, ${integrations.name} as name from ${integrations}
              where ${integrations.tenantId} = ${t} and ${integrations.id} in (${sql.join(
                [...integrationIds].map((id) => sql`${id}::uuid`),
                sql`, `,
              )})`,
        ),
      )
    : [];
  const nameOf = new Map(names.map((n) => [n.id, n.name]));

  const spent = new Map(rowsOf<{ day: string; minor: string }>(spendRows).map((r) => [r.day, BigInt(r.minor ?? "0")]));
  const deliveries = new Map<string, DeliveriesDay>(
    days.map((day) => [day, { day, delivered: 0, failed: 0, dead: 0 }]),
  );
  for (const r of rowsOf<{ day: string; state: "delivered" | "failed" | "dead"; n: number }>(deliveryRows)) {
    const d = deliveries.get(r.day);
    if (d) d[r.state] += Number(r.n);
  }

  return {
    days,
    requests: days.map((d) => requests.get(d)!),
    integrations: [...integrationIds]
      .map((id) => ({ id, name: nameOf.get(id) ?? "deleted integration" }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    spend: days.map((day) => {
      const minor = spent.get(day) ?? 0n;
      return { day, minor: minor.toString(), rub: formatMinor(minor) };
    }),
    deliveries: days.map((d) => deliveries.get(d)!),
  };
}
