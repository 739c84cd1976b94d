// `npm start`'s process model with the public API alone (no Next.js, no build needed), for the scale-out
// test: `node --import tsx server/testing/cluster-api-process.ts <port>` with WEB_CONCURRENCY and
// DATABASE_URL in the environment runs as many processes as server/main.ts would (processCount,
// serveInProcesses), each serving /api/public/v1 on the one port with its key cache, and naming itself in
// the answer header `x-test-pid`. Each process prints "listening <pid> on <port>" when it serves; with port 0
// the system picks it, and cluster workers share the port the first one got.
import cluster from "node:cluster";
import { createServer } from "node:http";
import { installDatabase, openDatabase } from "@/db/client";
import { processCount, serveInProcesses } from "@/server/lib/cluster";
import { startKeyCache } from "@/server/services/access/key-cache";
import { publicApiListener } from "./api-listener";
import { setTestEnv } from "./test-db";

const port = Number(process.argv[2]);
const e = setTestEnv({
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? "1",
});
const { count, notice } = processCount(e);
if (notice && cluster.isPrimary) console.error(notice);
await serveInProcesses(count, async () => {
  const database = await openDatabase({ url: e.databaseUrl, dir: "memory://", migrate: !e.databaseUrl, poolSize: 5 });
  installDatabase(database);
  await startKeyCache(database);
  const server = createServer(publicApiListener({ "x-test-pid": String(process.pid) }));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  console.log(`listening ${process.pid} on ${typeof address === "object" && address ? address.port : port}`);
  const stop = () => {
    server.close(() => void database.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
});
