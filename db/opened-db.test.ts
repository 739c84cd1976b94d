import { afterEach, describe, expect, it } from "vitest";
import { database, installDatabase, openedDb, type Database } from "./client";

/** A stand-in for an open database: only its identity matters to the process-wide holder. */
const fake = (name: string) => ({ db: { name } }) as unknown as Database;

const KEY = Symbol.for("platform.database");
const OPEN = Symbol.for("platform.database.open");
const holder = globalThis as Record<symbol, unknown>;
const saved = { key: holder[KEY], open: holder[OPEN] };

afterEach(() => {
  holder[KEY] = saved.key;
  holder[OPEN] = saved.open;
});

describe("openedDb (the pipeline's database without a promise)", () => {
  it("gives the installed database's handle, and the newer one after a second install", () => {
    const a = fake("a");
    const b = fake("b");
    installDatabase(a);
    expect(openedDb()).toBe(a.db);
    installDatabase(b);
    expect(openedDb()).toBe(b.db);
    return expect(database()).resolves.toBe(b);
  });

  it("gives nothing when the database in the holder is not the one it saw open", () => {
    installDatabase(fake("a"));
    // Another opener replaced the holder's promise (as database() does after a failed open).
    holder[KEY] = new Promise(() => {});
    expect(openedDb()).toBeUndefined();
  });
});
