import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// docs/event-intake.md "The relay" (issue 74 item 6): the relay example runs as written. The page's ```js
// block is taken from the Markdown, pointed at a stand-in for the API (its `https://YOUR-APP` replaced),
// started with `node`, and posted through as the snippet posts: what reaches the API must carry the key,
// and only what the site's own pages sent.

const PAGE = path.join(process.cwd(), "docs/event-intake.md");
const SITE = "https://www.example.com";
const KEY = "sk_test_relay_doc_example";

/** The page's relay example: its one ```js block that starts a server. */
function relaySource(): string {
  const blocks = [...readFileSync(PAGE, "utf8").matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const relay = blocks.filter((b) => b.includes("createServer("));
  expect(relay).toHaveLength(1);
  return relay[0]!;
}

interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const received: Received[] = [];
let upstream: Server;
let relay: ChildProcess;
let relayOrigin = "";
let dir = "";
let relayOutput = "";

/** A port free right now on the loopback (the relay takes it from `PORT`). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Posts to the relay as a page's beacon does (`text/plain`), from `origin` (none when null). */
function post(body: string, origin: string | null = SITE, method = "POST"): Promise<number> {
  return fetch(`${relayOrigin}/analytics/relay`, {
    method,
    headers: { "content-type": "text/plain;charset=UTF-8", ...(origin ? { origin } : {}) },
    ...(method === "POST" ? { body } : {}),
  }).then((r) => r.status);
}

const view = (id: string) => ({
  event_id: id,
  type: "page_view",
  occurred_at: new Date().toISOString(),
  page: { url: `${SITE}/shoes`, title: "Shoes", referrer: "https://www.google.com/" },
  properties: { visitor_id: "0b4a3c8e-8c1f-4a55-9d0e-3f0c2b9a7d11" },
});

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(raw) as { events: { event_id: string }[] };
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ results: body.events.map((e) => ({ event_id: e.event_id, status: "accepted" })) }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const api = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  const source = relaySource();
  expect(source).toContain('"https://YOUR-APP/api/public/v1/intake/events"');
  dir = mkdtempSync(path.join(tmpdir(), "intake-relay-"));
  writeFileSync(path.join(dir, "relay.mjs"), source.replace("https://YOUR-APP", api));
  const port = await freePort();
  relayOrigin = `http://127.0.0.1:${port}`;
  relay = spawn(process.execPath, [path.join(dir, "relay.mjs")], {
    env: { PATH: process.env.PATH, NODE_ENV: "production", PORT: String(port), PLATFORM_API_KEY: KEY },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (d: Buffer) => (relayOutput += d.toString());
  relay.stdout!.on("data", keep);
  relay.stderr!.on("data", keep);
  for (let i = 0; ; i++) {
    if (relay.exitCode !== null || i > 100) throw new Error(`the relay did not start:\n${relayOutput}`);
    if (
      await post("{}", null).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

afterAll(async () => {
  relay?.kill();
  await new Promise((resolve) => upstream?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every event the API stand-in received, in order, across its batches. */
const forwarded = () => received.flatMap((r) => (r.body as { events: { event_id: string }[] }).events);

/** Waits (up to 5 s: the relay sends a batch a second) until the API stand-in has received `n` events. */
async function untilForwarded(n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (forwarded().length < n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(forwarded(), relayOutput).toHaveLength(n);
}

describe("the relay example of docs/event-intake.md", () => {
  it("forwards the site's own page events in batches with the key, and nothing else", async () => {
    // Refused: another site's page, no Origin (a script), a GET, a purchase, a body that is not a batch.
    expect(await post(JSON.stringify({ events: [view("x-1")] }), "https://evil.example.net")).toBe(403);
    expect(await post(JSON.stringify({ events: [view("x-2")] }), null)).toBe(403);
    expect(await post("", SITE, "GET")).toBe(403);
    const purchase = { ...view("x-3"), type: "purchase", value: { amount: "1.00", currency: "RUB" } };
    expect(await post(JSON.stringify({ events: [purchase] }))).toBe(400);
    expect(await post("not json")).toBe(400);
    expect(await post(JSON.stringify({ events: "nope" }))).toBe(400);
    expect(await post(JSON.stringify({ events: [view("x-4"), null] }))).toBe(400);
    // Over 64 KB: the relay stops reading and drops the connection (no answer at all).
    await expect(
      post(JSON.stringify({ events: [{ ...view("x-5"), properties: { pad: "x".repeat(70_000) } }] })),
    ).rejects.toThrow();

    // Accepted: the site's posts after the refused ones, sent on in a batch (two when a tick falls between).
    const form = { ...view("form-1"), type: "form_submit", contact: { email: "olga@example.com" } };
    expect(await post(JSON.stringify({ events: [view("view-1")] }))).toBe(202);
    expect(await post(JSON.stringify({ events: [form, view("view-2")] }))).toBe(202);
    await untilForwarded(3);
    expect(forwarded()).toEqual(
      [view("view-1"), form, view("view-2")].map((e) => ({ ...e, occurred_at: expect.any(String) })),
    );
    for (const batch of received) {
      expect(batch.method).toBe("POST");
      expect(batch.url).toBe("/api/public/v1/intake/events");
      expect(batch.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(batch.headers["content-type"]).toBe("application/json");
    }
    expect(relay.exitCode).toBeNull();
    expect(relayOutput).toBe(""); // the API's answers were 200: nothing logged
  });
});
