// The public API alone in a child process, for the crash test: `node --import tsx server/testing/api-process.ts
// <database url> <port>` serves /api/public/v1 from the pipeline over node:http (no Next.js) on a
// migrated PostgreSQL database, prints "listening" when ready, and is killed with SIGKILL by the test (or
// ended with SIGTERM). The key cache runs as in the app, so tests of its invalidation use this process too.
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { installDatabase, openDatabase } from "@/db/client";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { handlePublicRequest } from "@/server/public-api/pipeline";
import { publicRouter } from "@/server/public-api/routes";
import { startKeyCache } from "@/server/services/access/key-cache";
import { setTestEnv } from "./test-db";

const [url, port] = process.argv.slice(2);
setTestEnv();
const database = await openDatabase({ url, poolSize: 10 });
installDatabase(database);
// As the app process does (server/http-server.ts): key rows cached, dropped on NOTIFY.
await startKeyCache(database);
const server = createServer((req, res) => {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  headers.set(PEER_HEADER, "127.0.0.1");
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream);
  const request = new Request(`https://api.example.ru${req.url}`, {
    method: req.method,
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  void handlePublicRequest(request, publicRouter).then(async (r) => {
    res.writeHead(r.status, Object.fromEntries(r.headers));
    res.end(Buffer.from(await r.arrayBuffer()));
  });
});
server.listen(Number(port), "127.0.0.1", () => console.log("listening"));
