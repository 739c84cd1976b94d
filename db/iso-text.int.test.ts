import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "@/server/testing/test-db";
import type { Db } from "./client";
import { isoText } from "./iso-text";
import { tenants } from "./schema";

// db/iso-text.ts: the JSON that list queries build in SQL writes moments exactly as Date.toISOString does.
describe("isoText", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.drop());

  const moments = [
    "2026-11-25T04:10:15.123Z",
    "2026-01-02T03:04:05.006Z",
    "2024-02-29T23:59:59.999Z",
    "1999-12-31T00:00:00.000Z",
    "0099-05-06T07:08:09.010Z",
  ];

  it.each(["UTC", "Asia/Tokyo", "America/St_Johns"])(
    "writes each moment as toISOString does, in session time zone %s",
    async (zone) => {
      const got = await database.db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local timezone = '${zone}'`));
        const rows: (string | null)[] = [];
        for (const m of moments) {
          const [r] = await (tx as Db)
            .select({ text: isoText(tenants.createdAt) })
            .from(sql`(select ${m}::timestamptz as created_at) as ${tenants}`);
          rows.push(r.text);
        }
        return rows;
      });
      expect(got).toEqual(moments.map((m) => new Date(m).toISOString()));
    },
  );

  it("keeps NULL as NULL", async () => {
    const [r] = await database.db
      .select({ text: isoText(tenants.createdAt) })
      .from(sql`(select null::timestamptz as created_at) as ${tenants}`);
    expect(r.text).toBeNull();
  });
});
