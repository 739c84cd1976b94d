import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { executePrepared } from "@/db/prepared";
import { leads } from "@/db/schema";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import type { IntegrationActor } from "../actor";
import { listLeads } from "./leads";

// Issue 22: a `/leads` page of a tenant holding most of the leads was planned again on every run, because
// its generic plan's row estimate (the average tenant's) made that plan look dearer than one for the value.
describe.skipIf(!process.env.DATABASE_URL)("GET /leads's statement on PostgreSQL with skewed tenants", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  const actors: IntegrationActor[] = [];
  beforeAll(async () => {
    database = await openTestDatabase();
    for (const count of [20_000, 30]) {
      const t = await makeTenant(database.db);
      await database.db.execute(sql`
        insert into ${leads} (tenant_id, status, title, source, owner, created_at, updated_at)
        select ${t.tenantId}::uuid, 'new', 'Lead ' || g, 'plan-test', 'internal',
               now() - make_interval(mins => g), now() - make_interval(mins => g)
        from generate_series(1, ${count}::int) as g`);
      actors.push({
        via: "api",
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        keyId: t.keyId,
        keyMode: "live",
        livemode: true,
        scopes: [],
        cell: "ru",
      });
    }
    await database.db.execute(sql`analyze ${leads}`);
  });
  afterAll(() => database.drop());

  it("keeps its generic plan after five runs for the large tenant, and pages as before", async () => {
    const one = await openDatabase({ url: database.url!, poolSize: 1 });
    try {
      const [big, small] = actors as [IntegrationActor, IntegrationActor];
      let page = await listLeads(one.db, big, { archived: false, limit: 25 });
      const seen = new Set(page.ids);
      for (let i = 0; i < 9; i++) {
        page = await listLeads(one.db, big, { archived: false, limit: 25, after: page.next! });
        expect(page.ids).toHaveLength(25);
        for (const id of page.ids) seen.add(id);
      }
      expect(seen.size).toBe(250);
      // The small tenant's pages come from the same statement with its own values.
      const mine = await listLeads(one.db, small, { archived: false, limit: 25 });
      expect(mine.ids).toHaveLength(25);
      expect(mine.next).not.toBeNull();
      const rest = await listLeads(one.db, small, { archived: false, limit: 25, after: mine.next! });
      expect([rest.ids.length, rest.next]).toEqual([5, null]);

      const plans = await executePrepared<{ generic_plans: string; custom_plans: string }>(
        one.db,
        "leads_plans",
        sql`select generic_plans::text, custom_plans::text from pg_prepared_statements
          where statement like ${"%api_head%"} and statement like ${"%updated_at%>%"}`,
      );
      expect(plans).toHaveLength(1);
      // Five custom plans while PostgreSQL learns the statement's cost; every later run on the generic one.
      expect(Number(plans[0]!.custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(plans[0]!.generic_plans)).toBeGreaterThanOrEqual(5);
    } finally {
      await one.close();
    }
  });
});
