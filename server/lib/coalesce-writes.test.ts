import { once } from "node:events";
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { countSocketWrites } from "@/server/testing/socket-writes";
import { CoalescingServerResponse } from "./coalesce-writes";

/** Answers as Next.js answers a route handler: flushHeaders, then the body, then end, a microtask apart. */
async function answerLikeNext(res: ServerResponse, body: string): Promise<void> {
  res.statusCode = 200;
  res.setHeader("content-type", "application/json");
  res.flushHeaders();
  await Promise.resolve();
  res.write(body);
  await Promise.resolve();
  res.end();
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  coalesce: boolean,
): Promise<{ url: string; writes: number[] }> {
  const writes: number[] = [];
  const server = createServer(coalesce ? { ServerResponse: CoalescingServerResponse } : {}, (req, res) => {
    const counter = countSocketWrites(res.socket as Socket);
    res.once("finish", () => writes.push(counter.calls));
    handler(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, writes };
}

async function get(url: string, agent?: Agent): Promise<{ status: number; body: string }> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    request(url, { agent }, resolve).on("error", reject).end(),
  );
  let body = "";
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode ?? 0, body };
}

describe("CoalescingServerResponse", () => {
  it("sends a route handler's head, body and end in one socket write, on every request of a kept-alive connection", async () => {
    const { url, writes } = await serve((_req, res) => void answerLikeNext(res, '{"status":"ok"}'), true);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i++) expect(await get(url, agent)).toEqual({ status: 200, body: '{"status":"ok"}' });
    agent.destroy();
    expect(writes).toEqual([1, 1, 1]);
  });

  it("without it the same answer takes more than one write (what the test above guards against)", async () => {
    const { url, writes } = await serve((_req, res) => void answerLikeNext(res, '{"status":"ok"}'), false);
    expect(await get(url)).toEqual({ status: 200, body: '{"status":"ok"}' });
    // Two or three: a write issued while the one before is still in flight is batched by the stream.
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBeGreaterThan(1);
  });

  it("does not hold a streamed answer: the first chunk reaches the client before the server ends", async () => {
    let clientGotFirst: () => void = () => {};
    const firstSeen = new Promise<void>((resolve) => (clientGotFirst = resolve));
    const { url } = await serve((_req, res) => {
      res.flushHeaders();
      res.write("first;");
      // The server ends only once the client has read the first chunk: a held socket would never end.
      void firstSeen.then(() => res.end("last"));
    }, true);
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      request(url, resolve).on("error", reject).end(),
    );
    let body = "";
    for await (const chunk of res) {
      body += String(chunk);
      if (body.includes("first;")) clientGotFirst();
    }
    expect(body).toBe("first;last");
  });

  it("leaves an answer without flushHeaders (end with a body) as it was: one write", async () => {
    const { url, writes } = await serve((_req, res) => res.end("plain"), true);
    expect(await get(url)).toEqual({ status: 200, body: "plain" });
    expect(writes).toEqual([1]);
  });
});
