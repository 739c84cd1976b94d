import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./client";

// db/pglite-turns.ts: the embedded database's queries let the event loop turn between them, so sockets
// (reads of new requests, writes of answers) are not held back until every queued query has run.
describe("embedded queries take turns with the event loop", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dir: "memory://", takeTurns: true });
  });
  afterAll(() => database.close());

  it("lets a callback queued on the event loop run while one caller's queries follow each other", async () => {
    // Like a request making its queries one after another: before the turns, the whole run of them (and
    // any other caller's queued ones) finished before the event loop could read a socket or fire a timer.
    let finished = 0;
    const run = (async () => {
      for (let i = 0; i < 50; i++) {
        await database.db.execute(sql`select 1 as one`);
        finished++;
      }
    })();
    const finishedWhenTheLoopTurned = await new Promise<number>((resolve) => setImmediate(() => resolve(finished)));
    await run;
    expect(finished).toBe(50);
    expect(finishedWhenTheLoopTurned).toBeLessThan(2);
  });

  it("keeps transactions whole: a failed one leaves nothing, a committed one is seen", async () => {
    await database.db.execute(sql`create table turns_probe (n int)`);
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into turns_probe values (1)`);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into turns_probe values (2)`);
    });
    const { rows } = (await database.db.execute(sql`select n from turns_probe`)) as unknown as {
      rows: { n: number }[];
    };
    expect(rows.map((r) => r.n)).toEqual([2]);
  });
});
