import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { MIGRATIONS, openDatabase } from "@/db/client";
import { migratedPgliteSnapshot } from "./pglite-snapshot";

// Test databases on PGlite start from this snapshot: it must hold every committed migration, and a
// database opened from it without running migrations must be a migrated one of its own.
it.runIf(!process.env.DATABASE_URL)(
  "holds every committed migration, and a database opened from it is writable and fresh",
  async () => {
    const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8")) as {
      entries: { tag: string }[];
    };
    const open = () => migratedPgliteSnapshot().then((s) => openDatabase({ dir: "memory://", pgliteSnapshot: s }));
    const a = await open();
    const b = await open();
    try {
      const rows = await a.pglite!.query<{ n: number }>("select count(*)::int as n from drizzle.__drizzle_migrations");
      expect(rows.rows[0]!.n).toBe(journal.entries.length);
      await a.db.execute(sql`insert into tenants (name, cell) values ('Snapshot test', 'ru')`);
      const inA = await a.pglite!.query<{ n: number }>("select count(*)::int as n from tenants");
      const inB = await b.pglite!.query<{ n: number }>("select count(*)::int as n from tenants");
      // Each database is its own copy: a write to one is not in the other.
      expect(inA.rows[0]!.n).toBe(inB.rows[0]!.n + 1);
    } finally {
      await a.close();
      await b.close();
    }
  },
);
