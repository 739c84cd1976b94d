import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./client";
import { portFile, shareEmbedded } from "./shared-embedded";

// The operator CLI reaches the running app's PGlite through pglite-socket. A CLI transaction must be
// isolated from the app's own queries: they wait until it ends, never join it.

let dir: string;
let app: Database;
let stop: () => Promise<void>;
let cli: postgres.Sql;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "shared-embedded-"));
  const pgliteDir = path.join(dir, "pglite");
  app = await openDatabase({ dir: pgliteDir });
  await app.pglite!.exec("create table t (id int primary key, v text)");
  stop = await shareEmbedded(app, pgliteDir);
  const port = Number(readFileSync(portFile(pgliteDir), "utf8").trim());
  cli = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await cli.end({ timeout: 2 });
  await stop();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const appRows = async () =>
  (await app.pglite!.query<{ id: number }>("select id from t order by id")).rows.map((r) => r.id);

describe("a socket client's transaction", () => {
  it("keeps the app's queries out until it commits; the app then sees the whole change", async () => {
    let appDone = false;
    let appRead: Promise<number[]> | null = null;
    await cli.begin(async (tx) => {
      await tx`insert into t (id, v) values (1, 'a')`;
      appRead = appRows().then((r) => {
        appDone = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 100));
      // The app's read waits: without the guard it would run inside this transaction and see row 1.
      expect(appDone).toBe(false);
      await tx`insert into t (id, v) values (2, 'b')`;
    });
    expect(await appRead!).toEqual([1, 2]);
  });

  it("rolled back, it leaves nothing, and an app transaction started meanwhile commits on its own", async () => {
    let appTx: Promise<void> | null = null;
    await expect(
      cli.begin(async (tx) => {
        await tx`insert into t (id, v) values (3, 'c')`;
        appTx = app.pglite!.transaction(async (t) => {
          await t.query("insert into t (id, v) values (4, 'd')");
        });
        await new Promise((r) => setTimeout(r, 50));
        throw new Error("CLI command failed");
      }),
    ).rejects.toThrow("CLI command failed");
    await appTx!;
    expect(await appRows()).toEqual([1, 2, 4]);
  });

  it("a client that disconnects mid-transaction is rolled back and releases the app", async () => {
    const port = Number(readFileSync(portFile(path.join(dir, "pglite")), "utf8").trim());
    const lost = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
    await lost`begin`;
    await lost`insert into t (id, v) values (5, 'e')`;
    await lost.end({ timeout: 0 });
    expect(await appRows()).toEqual([1, 2, 4]);
  });
});
