import { createServer } from "node:http";

// Baseline: a plain node:http server answering the same JSON as GET /api/health.
const port = Number(process.argv[2] ?? 3901);
const body = JSON.stringify({ status: "ok" });
createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}).listen(port, "127.0.0.1", () => process.send?.("ready"));
