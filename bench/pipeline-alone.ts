// Our pipeline alone: the public API's handlePublicRequest called in this process, 16 requests in flight,
// with no HTTP server and no Next.js, on a fresh PostgreSQL database (`pipeline_alone`, dropped at the end)
// holding a bench tenant (bench/bench-tenant.ts: 50 cards; the seed's data at scale 100: 10,000 messages). Prints the process's CPU per request for each
// path: what our pipeline, postgres.js and the Request/Response objects cost, without the framework. The
// bench's table gives the whole app's CPU per request; the difference is Next.js's (docs/benchmark.md).
// `{conversation}` in a path stands for the tenant's conversation with the most messages.
//   taskset -c 0 npx tsx bench/pipeline-alone.ts ["/me,/cards?limit=10,/cards"] [rounds]
//   taskset -c 0 npx tsx bench/pipeline-alone.ts "/me,/conversations/{conversation}/messages?limit=5,/leads?limit=25"
process.env.LOG_LEVEL = "warn";
import { count, desc, eq } from "drizzle-orm";
import { messages } from "@/db/schema";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { keepSixteenInFlight, setUpAlone } from "./alone-setup";

const bench = await setUpAlone("pipeline_alone", {
  async seed(db, t) {
    await seedTenantData(db, t.tenantId, 100, t.integrationId);
    const [conversation] = await db
      .select({ id: messages.conversationId, n: count() })
      .from(messages)
      .where(eq(messages.tenantId, t.tenantId))
      .groupBy(messages.conversationId)
      .orderBy(desc(count()))
      .limit(1);
    return conversation!.id;
  },
});
const conversation = bench.seeded;
const headers = bench.headers();

async function run(path: string, ms: number) {
  let bad = 0;
  const x = await keepSixteenInFlight(ms, async () => {
    const res = await bench.call(new Request(`http://localhost/api/public/v1${path}`, { headers }));
    if (res.status !== 200 && bad++ === 0) console.error(path, res.status, res.text);
  });
  return { path, n: x.n, bad, us: x.cpuMsEach * 1000 };
}
const paths = (process.argv[2] ?? "/me,/cards?limit=10,/cards").replaceAll("{conversation}", conversation).split(",");
for (const p of paths) await run(p, 2000);
for (let r = 0; r < Number(process.argv[3] ?? 3); r++)
  for (const p of paths) {
    const x = await run(p, 3000);
    console.log(
      `${x.path.replace(conversation, "{conversation}").padEnd(20)} ${x.us.toFixed(1).padStart(7)} µs/req  ${x.n} req  ${x.bad} non-200`,
    );
  }
await bench.finish();
