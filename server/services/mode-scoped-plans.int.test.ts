import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import * as schema from "@/db/schema";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import type { IntegrationActor, StaffActor } from "./actor";
import { listArticles } from "./articles/articles";
import { journalPage } from "./disclosures/journal";
import { listLeads } from "./leads/leads";
import { requestLogPage } from "./request-log/request-log-page";
import { listActions } from "./strategist/actions";
import { listReports } from "./strategist/reports";
import { listTopics } from "./strategist/topics";

// Issue 69 "Done when": scoping by mode costs the hot path nothing measurable. Each list read below is
// filtered by tenant and mode and ordered as its index (tenant_id, livemode, ...) is, so with both modes and
// other tenants in the tables the plan reads that index in order: an index scan, never a sort of the rows.

/** One statement a service ran: its text and the values of its parameters. */
interface Ran {
  text: string;
  params: unknown[];
}

let database: Awaited<ReturnType<typeof openTestDatabase>>;
/** A handle over the same database whose statements are recorded in {@link ran}. */
let logged: Db;
let explain: (r: Ran) => Promise<string>;
let closeLogged: () => Promise<void> = async () => {};
const ran: Ran[] = [];
let t: TenantFixture;

/** Rows per tenant and mode of every table below: enough that reading the whole tenant is dearer than the index. */
const ROWS = 3_000;

/** Inserts {@link ROWS} rows a mode for `tenantId` with a generated statement (`g` is 1..ROWS). */
async function fill(tenantId: string, integrationId: string): Promise<void> {
  const d = database.db;
  for (const live of [true, false]) {
    const m = sql`${live}::boolean`;
    const ten = sql`${tenantId}::uuid`;
    const n = sql`${ROWS}::int`;
    const ago = sql`now() - make_interval(mins => g)`;
    await d.execute(sql`insert into ${schema.articles} (tenant_id, livemode, title, status, updated_at)
      select ${ten}, ${m}, 'A' || g, 'published', ${ago} from generate_series(1, ${n}) g`);
    await d.execute(sql`insert into ${schema.strategistReports} (tenant_id, livemode, report_date, report_type,
        data_as_of, highlights, concerns, actions, evidence, created_at)
      select ${ten}, ${m}, current_date, 'daily', '{}', '[]', '[]', '[]', '{}', ${ago} from generate_series(1, ${n}) g`);
    await d.execute(sql`insert into ${schema.strategistTopics} (tenant_id, livemode, title, source, trend_score)
      select ${ten}, ${m}, 'T' || g, 'trends', g from generate_series(1, ${n}) g`);
    await d.execute(sql`with s as (
        insert into ${schema.strategistSessions} (tenant_id, livemode, integration_id)
        values (${ten}, ${m}, ${integrationId}::uuid) returning id)
      insert into ${schema.strategistActions} (tenant_id, livemode, session_id, title, created_at)
      select ${ten}, ${m}, s.id, 'Act ' || g, ${ago} from s, generate_series(1, ${n}) g`);
    await d.execute(sql`insert into ${schema.leads} (tenant_id, livemode, title, source, created_at, updated_at)
      select ${ten}, ${m}, 'L' || g, 'plan', ${ago}, ${ago} from generate_series(1, ${n}) g`);
    await d.execute(sql`insert into ${schema.requestLog} (tenant_id, livemode, integration_id, created_at, method,
        path, status, latency_ms, request_id)
      select ${ten}, ${m}, ${integrationId}::uuid, ${ago}, 'GET', '/me', 200, 1, 'req_' || g
      from generate_series(1, ${n}) g`);
    await d.execute(sql`insert into ${schema.disclosures} (tenant_id, livemode, integration_id, route, resource_type,
        resource_ids, request_id, created_at)
      select ${ten}, ${m}, ${integrationId}::uuid, 'GET /leads', 'lead', array['x'], 'req_' || g, ${ago}
      from generate_series(1, ${n}) g`);
  }
}

beforeAll(async () => {
  database = await openTestDatabase();
  const logger = { logQuery: (text: string, params: unknown[]) => void ran.push({ text, params }) };
  if (database.pglite) {
    const { drizzle } = await import("drizzle-orm/pglite");
    const pg = database.pglite;
    logged = drizzle(pg, { schema, logger }) as unknown as Db;
    explain = async (r) =>
      (await pg.query<Record<string, string>>(`explain ${r.text}`, r.params)).rows
        .map((x) => Object.values(x)[0])
        .join("\n");
  } else {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const client = postgres(database.url!, { max: 1, onnotice: () => {} });
    logged = drizzle(client, { schema, logger }) as unknown as Db;
    explain = async (r) =>
      (await client.unsafe(`explain ${r.text}`, r.params as never[]))
        .map((x) => Object.values(x)[0] as string)
        .join("\n");
    closeLogged = () => client.end({ timeout: 5 });
  }
  t = await makeTenant(database.db);
  const other = await makeTenant(database.db);
  await fill(t.tenantId, t.integrationId);
  await fill(other.tenantId, other.integrationId);
  await database.db.execute(sql`analyze`);
}, 120_000);
afterAll(async () => {
  await closeLogged();
  await database.drop();
});

/** The plans of the statements `read` runs on the logged handle (its first page and the page after it). */
async function plansOf(read: (db: Db) => Promise<unknown>): Promise<string[]> {
  ran.length = 0;
  await read(logged);
  const plans: string[] = [];
  for (const r of ran) plans.push(await explain(r));
  return plans;
}

describe.each(["sandbox", "live"] as const)("list reads of the %s mode", (mode) => {
  const livemode = mode === "live";
  const api = (): IntegrationActor => ({
    via: "api",
    tenantId: t.tenantId,
    integrationId: t.integrationId,
    keyId: t.keyId,
    keyMode: livemode ? "live" : "test",
    livemode,
    scopes: [],
    cell: "ru",
  });
  const staff = (): StaffActor => ({
    via: "console",
    tenantId: t.tenantId,
    staffUserId: "s",
    rights: ["view_personal_data"],
    livemode,
  });

  const reads: [string, string, (db: Db) => Promise<unknown>][] = [
    [
      "GET /articles",
      "articles_tenant_updated_idx",
      async (db) => {
        const p = await listArticles(db, api(), { limit: 25 });
        await listArticles(db, api(), { limit: 25, after: p.next! });
      },
    ],
    [
      "GET /strategist/reports",
      "strategist_reports_tenant_idx",
      async (db) => {
        const p = await listReports(db, api(), { limit: 25 });
        await listReports(db, api(), { limit: 25, after: p.next! });
      },
    ],
    [
      "GET /strategist/topics",
      "strategist_topics_tenant_idx",
      async (db) => {
        const p = await listTopics(db, api(), { limit: 25 });
        await listTopics(db, api(), { limit: 25, after: p.next! });
      },
    ],
    [
      "GET /strategist/actions",
      "strategist_actions_tenant_idx",
      async (db) => {
        const p = await listActions(db, api(), { limit: 25 });
        await listActions(db, api(), { limit: 25, after: p.next! });
      },
    ],
    [
      "GET /leads",
      "leads_tenant_updated_idx",
      async (db) => {
        const p = await listLeads(db, api(), { archived: false, limit: 25 });
        await listLeads(db, api(), { archived: false, limit: 25, after: p.next! });
      },
    ],
    [
      "the console's request log",
      "request_log_tenant_created_idx",
      async (db) => {
        const p = await requestLogPage(db, staff(), {}, 50, null);
        await requestLogPage(db, staff(), {}, 50, p.next);
      },
    ],
    [
      "the console's disclosure journal",
      "disclosures_tenant_idx",
      async (db) => {
        const p = await journalPage(db, staff(), {}, 50, null);
        await journalPage(db, staff(), {}, 50, p.next);
      },
    ],
  ];

  it.each(reads)("%s reads %s in order, without sorting", async (name, index, read) => {
    const plans = await plansOf(read);
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect(plan).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using ${index} on`));
      if (name === "the console's disclosure journal") {
        // Its index (tenant_id, livemode, created_at) has no id, as before test mode: the rows come in
        // created_at order and only rows of the same instant are put in id order, never the whole tenant.
        expect(plan).not.toMatch(/(^|-> +)Sort +\(/m);
        expect(plan).toMatch(/Presorted Key: disclosures\.created_at/);
      } else expect(plan).not.toMatch(/Sort/);
    }
  });
});
