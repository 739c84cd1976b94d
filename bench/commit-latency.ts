import postgres from "postgres";

/** Commit latency of the bench's PostgreSQL server, ms (nearest-rank percentiles of every commit). */
export interface CommitLatency {
  sessions: number;
  seconds: number;
  commits: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Commits that took longer than {@link STALL_MS}. */
  stalls: number;
}

/** A commit slower than this is a stall, ms: the read p99 target of issue 22. */
export const STALL_MS = 50;

/**
 * The floor under the personal-data reads' p99 (issue 22 item 3: every such answer waits until its
 * disclosure-journal row is durable): `sessions` connections each commit one-row inserts, one after the
 * other, for `seconds` s, with nothing else running. On the twenty-fifth session's VM such a loop (pgbench,
 * 4 clients, 40 s) had a p50 of 0.53 ms and a max of 282 ms: the disk stopped every commit for 100-280 ms a
 * few times a minute, and the journaled pages' p99 carried it while the app's event loop never waited more
 * than 50 ms. Measured into a table of its own, created and dropped here.
 * @param dbUrl the bench database
 */
export async function benchCommitLatency(dbUrl: string, sessions = 4, seconds = 20): Promise<CommitLatency> {
  const sql = postgres(dbUrl, { max: sessions, onnotice: () => {} });
  try {
    await sql`create table bench_commit_probe (n int not null)`;
    const times: number[] = [];
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: sessions }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await sql`insert into bench_commit_probe values (1)`; // its own transaction, so its own commit
          times.push(performance.now() - started);
        }
      }),
    );
    times.sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]! * 100) / 100;
    return {
      sessions,
      seconds,
      commits: times.length,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      p999Ms: at(0.999),
      maxMs: at(1),
      stalls: times.filter((t) => t > STALL_MS).length,
    };
  } finally {
    await sql`drop table if exists bench_commit_probe`.catch(() => {});
    await sql.end();
  }
}
