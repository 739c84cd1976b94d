import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "./client";
import { DirectoryInUseError, lockDirectory, lockFile } from "./directory-lock";

const root = mkdtempSync(path.join(os.tmpdir(), "directory-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("lockDirectory (one opener per embedded database directory)", () => {
  it("refuses a second holder while the first holds it, and lets go on release", () => {
    const dir = path.join(root, "a");
    const release = lockDirectory(dir);
    expect(existsSync(lockFile(dir))).toBe(true);
    expect(() => lockDirectory(dir)).toThrow(DirectoryInUseError);
    release();
    release(); // once is enough; a second call changes nothing
    expect(existsSync(lockFile(dir))).toBe(false);
    lockDirectory(dir)();
  });

  it("names the live process that holds it", () => {
    const dir = path.join(root, "b");
    writeFileSync(lockFile(dir), `${process.ppid}\n`); // the test runner's parent: alive
    let caught: unknown;
    try {
      lockDirectory(dir);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DirectoryInUseError);
    expect((caught as DirectoryInUseError).pid).toBe(process.ppid);
    expect((caught as Error).message).toContain(`pid ${process.ppid}`);
    expect(existsSync(lockFile(dir))).toBe(true); // someone else's lock is left alone
  });

  it("takes over a lock naming this process's pid that this process does not hold (a restarted container)", () => {
    const dir = path.join(root, "d");
    writeFileSync(lockFile(dir), `${process.pid}\n`);
    const release = lockDirectory(dir);
    expect(() => lockDirectory(dir)).toThrow(DirectoryInUseError); // now it is held here
    release();
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it("takes over a lock left by a process that is gone", () => {
    const dir = path.join(root, "c");
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(lockFile(dir), `${gone.stdout}\n`);
    const release = lockDirectory(dir);
    release();
    expect(existsSync(lockFile(dir))).toBe(false);
  });
});

describe("openDatabase on a directory", () => {
  it("holds the directory until close(): a second open is refused, an open after close works", async () => {
    const dir = path.join(root, "db");
    const first = await openDatabase({ dir });
    await expect(openDatabase({ dir })).rejects.toThrow(DirectoryInUseError);
    await first.close();
    expect(existsSync(lockFile(dir))).toBe(false);
    const again = await openDatabase({ dir });
    await again.close();
  }, 60_000);
});
