// The intake path alone (issue 74 item 5): POST /intake/events through the public API's handlePublicRequest
// in this process, 16 batches in flight, with no HTTP server and no Next.js, on a fresh PostgreSQL database
// (`intake_alone`, dropped at the end) holding a bench tenant with the preview `event-intake`. The batches are
// the bench row's (bench/intake-load.ts: 100 events, a tenth duplicates). Prints the process's CPU per batch
// and the accepted events a second of each round: what our pipeline, the intake service and postgres.js
// cost, without the framework, steadier than the bench's row on a busy host; and PostgreSQL's CPU a batch
// (the database's backends and the server's background processes, bench/process-stats.ts).
//   taskset -c 0 npx tsx bench/intake-alone.ts [rounds] [seconds]
process.env.LOG_LEVEL = "warn";
import { keepSixteenInFlight, setUpAlone } from "./alone-setup";
import { countVerdicts, intakeBody, intakePieces, type IntakeCounts } from "./intake-load";
import { cpuSince, cpuSnapshot } from "./process-stats";

const NAME = "intake_alone";
const bench = await setUpAlone(NAME, { previews: ["event-intake"] });
const headers = bench.headers({ "content-type": "application/json" });
const pieces = intakePieces(new Date(Date.now() - 3_600_000).toISOString());

/** One round of `ms`: a new id prefix, 16 batches in flight. */
async function run(round: number, ms: number) {
  const counts: IntakeCounts = { accepted: 0, duplicate: 0, rejected: 0 };
  let bad = 0;
  const p0 = cpuSnapshot(process.pid, NAME);
  const x = await keepSixteenInFlight(ms, async (i) => {
    const body = intakeBody(pieces, `r${round}`, i);
    const res = await bench.call(
      new Request("http://localhost/api/public/v1/intake/events", { method: "POST", headers, body }),
    );
    if (res.status !== 200 && bad++ === 0) console.error(res.status, res.text);
    countVerdicts(res.text, counts);
  });
  const pg = cpuSince(p0, cpuSnapshot(process.pid, NAME)).postgresPct;
  return {
    n: x.n,
    bad,
    counts,
    msPerBatch: x.cpuMsEach,
    pgMsPerBatch: (pg * 10 * x.seconds) / x.n,
    perSecond: counts.accepted / x.seconds,
  };
}

await run(0, 4000);
for (let r = 1; r <= Number(process.argv[2] ?? 3); r++) {
  const x = await run(r, Number(process.argv[3] ?? 5) * 1000);
  console.log(
    `round ${r}: ${x.msPerBatch.toFixed(2)} ms of CPU a batch (PostgreSQL ${x.pgMsPerBatch.toFixed(2)} ms), ${Math.round(x.perSecond)} accepted events/s, ${x.n} batches (${x.counts.accepted} accepted, ${x.counts.duplicate} duplicate, ${x.counts.rejected} rejected, ${x.bad} non-200)`,
  );
}
await bench.finish();
