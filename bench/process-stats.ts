import { readdirSync, readFileSync } from "node:fs";

// CPU time and resident memory of the app's process tree and of the PostgreSQL processes serving the
// bench's database, from /proc (Linux). Elsewhere every figure reads as 0.

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, clock ticks. */
  ticks: number;
  rssBytes: number;
}

function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const f = stat.slice(close + 2).split(" ");
    // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15, rss 24 (pages).
    return { pid, ppid: Number(f[1]), comm, ticks: Number(f[11]) + Number(f[12]), rssBytes: Number(f[21]) * 4096 };
  } catch {
    return null;
  }
}

function allProcs(): Proc[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  return names
    .filter((n) => /^\d+$/.test(n))
    .map((n) => readProc(Number(n)))
    .filter((p): p is Proc => p !== null);
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/** `root` and every process below it. */
function tree(procs: Proc[], root: number): Proc[] {
  const inTree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of procs)
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
  }
  return procs.filter((p) => inTree.has(p.pid));
}

/**
 * The PostgreSQL processes that work for the bench: backends connected to `dbName` and the server's
 * own background processes (postmaster, WAL writer, checkpointer...). Backends of other databases on a
 * shared server are left out.
 */
function postgresProcs(procs: Proc[], dbName: string): Proc[] {
  return procs.filter((p) => {
    if (p.comm !== "postgres" && p.comm !== "postmaster") return false;
    const cmd = cmdline(p.pid);
    const backend = /\(\d+\)|\[local\]/.test(cmd);
    return !backend || cmd.includes(` ${dbName} `);
  });
}

/** A point-in-time reading of CPU ticks per process, for {@link cpuSince}. */
export interface CpuSnapshot {
  atMs: number;
  app: Map<number, number>;
  postgres: Map<number, number>;
}

/** Reads the CPU ticks of the app's tree (`appPid`) and of the bench database's PostgreSQL processes. */
export function cpuSnapshot(appPid: number, dbName: string | null): CpuSnapshot {
  const procs = allProcs();
  const asMap = (ps: Proc[]) => new Map(ps.map((p) => [p.pid, p.ticks]));
  return {
    atMs: performance.now(),
    app: asMap(tree(procs, appPid)),
    postgres: dbName ? asMap(postgresProcs(procs, dbName)) : new Map(),
  };
}

/**
 * CPU used between two snapshots, in % of one core (200 = two cores busy): processes started in between
 * count from zero; those that ended in between are missed (the app's and PostgreSQL's are long-lived).
 */
export function cpuSince(before: CpuSnapshot, after: CpuSnapshot): { appPct: number; postgresPct: number } {
  const seconds = (after.atMs - before.atMs) / 1000;
  const used = (a: Map<number, number>, b: Map<number, number>) => {
    let ticks = 0;
    for (const [pid, t] of b) ticks += t - (a.get(pid) ?? 0);
    return (ticks / TICKS_PER_S / seconds) * 100;
  };
  return { appPct: used(before.app, after.app), postgresPct: used(before.postgres, after.postgres) };
}

/** Resident memory of the app's process tree, bytes. */
export function treeRss(appPid: number): number {
  return tree(allProcs(), appPid).reduce((sum, p) => sum + p.rssBytes, 0);
}

/**
 * A cheap sampler of {@link treeRss} for a timer: it reads only the tree's known processes and looks for
 * new ones (a scan of /proc) every `rescanEvery` calls, so sampling does not take CPU from the app.
 */
export function rssSampler(appPid: number, rescanEvery = 20): () => number {
  let pids: number[] = [];
  let calls = 0;
  return () => {
    if (calls++ % rescanEvery === 0) pids = tree(allProcs(), appPid).map((p) => p.pid);
    return pids.reduce((sum, pid) => sum + (readProc(pid)?.rssBytes ?? 0), 0);
  };
}
