// The fairness row alone (issue 75 item 5, bench/fairness.ts): on a fresh PostgreSQL database
// (`fairness_alone`, dropped at the end), 2 worker processes; tenant B's 200 events at 20/s to a fast
// receiver, first alone, then behind tenant A's 50,000 events to a receiver answering in 2 s. Prints B's
// p50/p95 latency (event created → receiver got it) in both phases and how many of A's were in flight.
//   npx tsx bench/fairness-alone.ts [backlog] [events] [rate/s]
process.env.LOG_LEVEL = "warn";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { setTestEnv } from "@/server/testing/test-db";
import { benchFairness, fairnessLine } from "./fairness";

const NAME = "fairness_alone";
const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await admin.unsafe(`drop database if exists ${NAME} with (force)`);
await admin.unsafe(`create database ${NAME}`);
const url = `postgres://postgres@127.0.0.1:5432/${NAME}`;
setTestEnv({ DATABASE_URL: url, NODE_ENV: "production", LOG_LEVEL: "silent", PAYMENT_SANDBOX: "allow" });
await (await openDatabase({ url, migrate: true, poolSize: 1 })).close();
const started = Date.now();
try {
  const f = await benchFairness(url, (m) => console.log(m), {
    workers: 2,
    backlog: Number(process.argv[2] ?? 50_000),
    slowMs: 2_000,
    events: Number(process.argv[3] ?? 200),
    ratePerSec: Number(process.argv[4] ?? 20),
  });
  console.log(`${fairnessLine(f)}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
} finally {
  await admin.unsafe(`drop database if exists ${NAME} with (force)`);
  await admin.end();
}
process.exit(0);
