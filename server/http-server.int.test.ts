import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent, request } from "node:http";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { RequestLogWriter, setRequestLogWriter } from "@/server/services/request-log/writer";
import { countSocketWrites } from "@/server/testing/socket-writes";
import { openTestDatabase } from "@/server/testing/test-db";
import { LOOPBACK_HOSTS, startApp, adoptBuildConfig, type RunningApp } from "./http-server";

// Where the app listens (issue 23 item 7): loopback only unless HOST says otherwise, for `npm start`
// and the demo alike (both call startApp). Next.js is replaced by a handler that echoes the peer stamp,
// so this runs without a build; everything else in startApp is real.

// Socket writes of each answer to `/like-next`, which answers as Next.js answers a route handler.
// `globalsAtCreation`: the globals Next.js adopts (its `NextRequest` extends `Request`; it takes
// `AsyncLocalStorage` from globalThis), as they were when startApp created Next.js.
const seen = vi.hoisted(() => ({
  writes: [] as number[],
  globalsAtCreation: [] as { Request: unknown; AsyncLocalStorage: unknown }[],
}));
// The runtime's own globals, read before this file starts any app.
const runtime = vi.hoisted(() => {
  const g = globalThis as { Request?: unknown; AsyncLocalStorage?: unknown };
  return { Request: g.Request, AsyncLocalStorage: g.AsyncLocalStorage };
});

vi.mock("next", () => ({
  default: () => {
    const g = globalThis as { Request?: unknown; AsyncLocalStorage?: unknown };
    seen.globalsAtCreation.push({ Request: g.Request, AsyncLocalStorage: g.AsyncLocalStorage });
    return {
      prepare: async () => {},
      getRequestHandler: () => (req: IncomingMessage, res: ServerResponse) => {
        // API paths: which route Next.js would serve, and the sent URL the server stamped (static-door.ts).
        if (req.url?.startsWith("/api/"))
          return res.end(JSON.stringify({ url: req.url, sent: req.headers["x-service-public-url"] ?? null }));
        if (req.url !== "/like-next") return res.end(String(req.headers["x-service-peer-address"]));
        const counter = countSocketWrites(res.socket as Socket);
        res.once("finish", () => seen.writes.push(counter.calls));
        // Next.js's pipeToNodeResponse: flushHeaders, then the body, then end, a microtask apart.
        void (async () => {
          res.setHeader("content-type", "application/json");
          res.flushHeaders();
          await Promise.resolve();
          res.write('{"status":"ok"}');
          await Promise.resolve();
          res.end();
        })();
      },
      close: async () => {},
    };
  },
}));

let dir: string;
let app: RunningApp | null = null;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "http-server-"));
});
afterEach(async () => {
  await app?.stop();
  app = null;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The machine's first non-loopback IPv4 address, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
}

function get(host: string, port: number, headers: Record<string, string> = {}, path = "/"): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, headers }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.end();
  });
}

async function start(env: Record<string, string>): Promise<{ app: RunningApp; port: number }> {
  const port = await freePort();
  const db = await openTestDatabase({ PORT: String(port), PGLITE_DIR: path.join(dir, `pglite-${port}`), ...env });
  app = await startApp({ dev: false, database: db });
  const drop = db.drop;
  const stop = app.stop;
  // stop() closes the database; a PostgreSQL test database is then dropped too.
  app.stop = async () => {
    await stop();
    await drop().catch(() => {});
  };
  return { app, port };
}

describe("startApp", () => {
  it("listens on loopback only when HOST is unset", async () => {
    const { app, port } = await start({});
    const addresses = app.servers.map((s) => (s.address() as AddressInfo).address);
    expect(addresses.length).toBeGreaterThanOrEqual(1);
    expect(addresses.every((a) => (LOOPBACK_HOSTS as readonly string[]).includes(a))).toBe(true);
    expect(addresses).toContain("127.0.0.1");
    expect(await get("127.0.0.1", port)).toBe("127.0.0.1");
    const external = externalAddress();
    if (external) await expect(get(external, port)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    // The peer is stamped by the server; a copy sent by the client is dropped.
    expect(await get("127.0.0.1", port, { [PEER_HEADER]: "203.0.113.9" })).toBe("127.0.0.1");
  });

  it("creates Next.js on the runtime's own Request and AsyncLocalStorage (issue 68 item 3)", async () => {
    await start({});
    await app!.stop();
    app = null;
    await start({});
    expect(runtime.Request).toBeTypeOf("function");
    // Every app this file started (two here at least) left both globals as the runtime made them.
    expect(seen.globalsAtCreation.length).toBeGreaterThanOrEqual(2);
    for (const atCreation of seen.globalsAtCreation) {
      expect(atCreation.Request).toBe(runtime.Request);
      expect(atCreation.AsyncLocalStorage).toBe(runtime.AsyncLocalStorage);
    }
    const g = globalThis as { Request?: unknown; AsyncLocalStorage?: unknown };
    expect(g.Request).toBe(runtime.Request);
    expect(g.AsyncLocalStorage).toBe(runtime.AsyncLocalStorage);
  });

  it("hands parameterised public API paths to the static door with the URL they were sent to", async () => {
    const { port } = await start({});
    const seenBy = async (p: string, headers: Record<string, string> = {}) =>
      JSON.parse(await get("127.0.0.1", port, headers, p)) as { url: string; sent: string | null };
    const sent = "/api/public/v1/conversations/0b0e3c52-8d3f-4c1e-9a57-1f2f3c4d5e6f/messages?limit=5&cursor=a.b";
    expect(await seenBy(sent)).toEqual({ url: "/api/public/v1/door", sent });
    expect(await seenBy("/api/public/v1/cards/card-1")).toEqual({
      url: "/api/public/v1/door",
      sent: "/api/public/v1/cards/card-1",
    });
    expect(await seenBy("/api/public/v1/no-such-thing")).toEqual({
      url: "/api/public/v1/door",
      sent: "/api/public/v1/no-such-thing",
    });
    // Paths with a route file of their own, the root, a trailing slash and other APIs go to Next.js as sent,
    // and a sent URL a client made up is dropped.
    for (const p of [
      "/api/public/v1/me",
      "/api/public/v1/cards?limit=10",
      "/api/public/v1/strategist/reports",
      "/api/public/v1/openapi.json",
      "/api/public/v1",
      "/api/public/v1/cards/card-1/",
      "/api/trpc/keys.list",
    ])
      expect(await seenBy(p, { "x-service-public-url": "/api/public/v1/wallet" }), p).toEqual({ url: p, sent: null });
  });

  it("listens where HOST says (every interface with 0.0.0.0)", async () => {
    const { app, port } = await start({ HOST: "0.0.0.0" });
    expect(app.servers.map((s) => (s.address() as AddressInfo).address)).toEqual(["0.0.0.0"]);
    const external = externalAddress();
    if (external) expect(await get(external, port)).toBe(external);
  });

  it("sends each answer of a kept-alive connection in one socket write (server/lib/coalesce-writes.ts)", async () => {
    const { port } = await start({});
    seen.writes.length = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 2; i++) {
        const body = await new Promise<string>((resolve, reject) => {
          request({ host: "127.0.0.1", port, path: "/like-next", agent }, (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d));
            res.on("end", () => resolve(text));
          })
            .on("error", reject)
            .end();
        });
        expect(body).toBe('{"status":"ok"}');
      }
    } finally {
      agent.destroy();
    }
    expect(seen.writes).toEqual([1, 1]);
  });

  it("writes the request log's waiting rows on stop, before the database closes", async () => {
    const started = await start({});
    const writer = new RequestLogWriter({ intervalMs: 60_000 });
    setRequestLogWriter(writer);
    try {
      writer.push({
        createdAt: new Date(),
        tenantId: null,
        livemode: true,
        integrationId: null,
        apiKeyId: null,
        keyId: null,
        method: "GET",
        path: "/me",
        status: 401,
        problemCode: "invalid_api_key",
        latencyMs: 1,
        requestId: "req_on_stop",
        callerAddress: "127.0.0.1",
      });
      app = null; // stopped here, not again after the test
      await started.app.stop();
      expect(writer.stats).toMatchObject({ written: 1, failedFlushes: 0 });
    } finally {
      setRequestLogWriter(undefined);
    }
  });
});

// The production server takes the configuration its build resolved, so Next.js does not load its
// compiler to read next.config.ts at start (issue 22 item 4: resident memory).
describe("adoptBuildConfig", () => {
  const VAR = "__NEXT_PRIVATE_STANDALONE_CONFIG";
  const saved = process.env[VAR];
  afterEach(() => {
    if (saved === undefined) delete process.env[VAR];
    else process.env[VAR] = saved;
  });

  it("hands Next.js the build's resolved configuration", () => {
    delete process.env[VAR];
    const root = mkdtempSync(path.join(dir, "build-"));
    mkdirSync(path.join(root, ".next"));
    const config = { poweredByHeader: false, experimental: { preloadEntriesOnStart: false } };
    writeFileSync(path.join(root, ".next", "required-server-files.json"), JSON.stringify({ version: 1, config }));
    adoptBuildConfig(root);
    expect(JSON.parse(process.env[VAR]!)).toEqual(config);
  });

  it("leaves it unset without a build, and keeps a value already set", () => {
    delete process.env[VAR];
    adoptBuildConfig(mkdtempSync(path.join(dir, "no-build-")));
    expect(process.env[VAR]).toBeUndefined();
    process.env[VAR] = '{"set":"before"}';
    adoptBuildConfig(process.cwd());
    expect(process.env[VAR]).toBe('{"set":"before"}');
  });
});
