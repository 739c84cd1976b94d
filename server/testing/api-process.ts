// The public API alone in a child process, for the crash test: `node --import tsx server/testing/api-process.ts
// <database url> <port>` serves /api/public/v1 from the pipeline over node:http (no Next.js) on a
// migrated PostgreSQL database, prints "listening <port>" when ready (port 0: the system picks one), and
// is killed with SIGKILL by the test (or ended with SIGTERM). The key cache runs as in the app, so tests
// of its invalidation use this process too; `--no-key-cache` after the port leaves it off (to measure
// what it gains).
import { createServer } from "node:http";
import { installDatabase, openDatabase } from "@/db/client";
import { startKeyCache } from "@/server/services/access/key-cache";
import { publicApiListener } from "./api-listener";
import { setTestEnv } from "./test-db";

const [url, port, flag] = process.argv.slice(2);
setTestEnv();
const database = await openDatabase({ url, poolSize: 10 });
installDatabase(database);
// As the app process does (server/http-server.ts): key rows cached, dropped on NOTIFY.
if (flag !== "--no-key-cache") await startKeyCache(database);
const server = createServer(publicApiListener());
server.listen(Number(port), "127.0.0.1", () => {
  const address = server.address();
  console.log(`listening ${typeof address === "object" && address ? address.port : port}`);
});
