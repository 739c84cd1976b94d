import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { SANDBOX_TABLES } from "@/server/services/sandbox/sandbox-tables";

/**
 * A checksum of every live row of the database, by table (issue 69: `sandbox:reset` and test-mode work
 * never change a live row): for each table of the schema, the number of rows and an MD5 of all of them
 * as JSON, sorted; only rows with `livemode` true of the tables that have the column, every row of the
 * others. `tenants.sandbox_seeded_at` is left out: it is the sandbox's own stamp on the tenant row; so are
 * `request_log` and `usage_daily`, written in the background by the request log.
 * @returns table name → `<rows>:<md5>`
 */
export async function liveChecksums(db: Db): Promise<Record<string, string>> {
  const tables = rowsOf<{ name: string; live: boolean }>(
    await db.execute(sql`
      select t.table_name as name,
             exists (select 1 from information_schema.columns c
                     where c.table_schema = t.table_schema and c.table_name = t.table_name
                       and c.column_name = 'livemode') as live
      from information_schema.tables t
      where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'
        -- A partition's rows are its parent's (intake_events): counted once, under the parent.
        and not exists (select 1 from pg_class p where p.relname = t.table_name and p.relispartition)
        -- The request log's rows and its daily counts are written by its background flush, so a request an
        -- earlier test made may land at any moment; nothing of the sandbox writes them.
        and t.table_name not in ('request_log', 'usage_daily')
      order by 1`),
  );
  const out: Record<string, string> = {};
  for (const t of tables) {
    const [row] = rowsOf<{ n: number; sum: string }>(
      await db.execute(
        sql`select count(*)::int as n, coalesce(md5(string_agg(x, '|' order by x)), '') as sum
            from (select (to_jsonb(r) - 'sandbox_seeded_at')::text as x from ${sql.identifier(t.name)} r
                  ${t.live ? sql`where r.livemode` : sql``}) s`,
      ),
    );
    out[t.name] = `${row.n}:${row.sum}`;
  }
  return out;
}

/**
 * A checksum of one tenant's sandbox rows, by table of SANDBOX_TABLES (server/services/sandbox): what a
 * reset of another tenant's sandbox must leave as it is.
 * @returns table name → `<rows>:<md5>`
 */
export async function sandboxChecksums(db: Db, tenantId: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of SANDBOX_TABLES) {
    const whole = sql.identifier(t.name);
    const [row] = rowsOf<{ n: number; sum: string }>(
      await db.execute(
        sql`select count(*)::int as n,
                   coalesce(md5(string_agg(to_jsonb(${whole})::text, '|' order by to_jsonb(${whole})::text)), '') as sum
            from ${t.table} where ${t.sandboxRows(tenantId)}`,
      ),
    );
    out[t.name] = `${row.n}:${row.sum}`;
  }
  return out;
}
