// The timeseries read alone (issue 74 item 5): GET /analytics/timeseries through the public API's
// handlePublicRequest in this process, 16 reads in flight, with no HTTP server and no Next.js, on a fresh
// PostgreSQL database (`timeseries_alone`, dropped at the end) holding a bench tenant with the preview
// `event-intake` and 180 days of daily rollups over 10 traffic sources (the period of 90 days and the one
// before it, as a 90-day read with its comparison reads). Prints the process's CPU a read and the reads a
// second of each round: what our pipeline and the analytics read cost without the framework.
//   taskset -c 0 npx tsx bench/timeseries-alone.ts [rounds] [seconds]
process.env.LOG_LEVEL = "warn";
import { sql } from "drizzle-orm";
import { keepSixteenInFlight, setUpAlone } from "./alone-setup";
import { timeseriesPath } from "./intake";

const bench = await setUpAlone("timeseries_alone", {
  previews: ["event-intake"],
  async seed(db, t) {
    await db.execute(sql`
      insert into analytics_daily (tenant_id, livemode, day, source, kind, pageviews, sessions, visitors, leads, deals_won, revenue_minor, events)
      select ${t.tenantId}::uuid, true, (current_date - g.day), 'source' || s.n, case when s.n < 2 then 'ai_assistant' else 'search' end,
             300, 100, 80, 3, 1, 150000, 400
      from generate_series(1, 181) as g(day), generate_series(0, 9) as s(n)`);
    await db.execute(sql`insert into intake_rollup_state (id, xid_watermark) values (1, '1') on conflict do nothing`);
  },
});
const headers = bench.headers();
const address = `http://localhost/api/public/v1${timeseriesPath(Date.now())}`;

/** One round of `ms`, 16 reads in flight. */
async function run(ms: number) {
  let bad = 0;
  const x = await keepSixteenInFlight(ms, async () => {
    const res = await bench.call(new Request(address, { headers }));
    if (res.status !== 200 && bad++ === 0) console.error(res.status, res.text);
  });
  return { n: x.n, bad, msPerRead: x.cpuMsEach, perSecond: x.n / x.seconds };
}

await run(4000);
for (let r = 1; r <= Number(process.argv[2] ?? 3); r++) {
  const x = await run(Number(process.argv[3] ?? 5) * 1000);
  console.log(
    `round ${r}: ${x.msPerRead.toFixed(3)} ms of CPU a read, ${Math.round(x.perSecond)} reads/s, ${x.n} reads (${x.bad} non-200)`,
  );
}
await bench.finish();
