// An operations worker process for tests: `node --import tsx server/testing/operation-worker-process.ts
// <database url> <lease ms> <model delay ms>`. It runs the local driver's operation loop
// (server/jobs/operation-loop.ts) with the catalog model (its replies and its articles) slowed by <model
// delay ms>, so a test can kill it
// while its runs are in flight. Prints "ready"; SIGKILL is what the crash test sends.
import { openDatabase } from "@/db/client";
import { startOperationLoop } from "@/server/jobs/operation-loop";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import { setTestEnv } from "@/server/testing/test-db";

const [url, lease, delay] = process.argv.slice(2);
setTestEnv({ DATABASE_URL: url!, LOG_LEVEL: "warn" });
const d = await openDatabase({ url, poolSize: 10 });
const catalog = catalogModel();
const loop = startOperationLoop(d.db, {
  leaseMs: Number(lease),
  pollMs: 100,
  concurrency: 16,
  model: {
    model: catalog.model,
    writerModel: catalog.writerModel,
    reply: async (input) => {
      await new Promise((r) => setTimeout(r, Number(delay)));
      return catalog.reply(input);
    },
    write: async (brief) => {
      await new Promise((r) => setTimeout(r, Number(delay)));
      return catalog.write(brief);
    },
    analystModel: catalog.analystModel,
    analyze: async (input) => {
      await new Promise((r) => setTimeout(r, Number(delay)));
      return catalog.analyze(input);
    },
  },
});
console.log("ready");
process.on("SIGTERM", () => {
  setTimeout(() => process.exit(0), 5000).unref();
  void loop
    .stop()
    .then(() => d.close())
    .then(() => process.exit(0));
});
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
