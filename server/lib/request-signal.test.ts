import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { installRequestSignalPassThrough, SignalKeepingRequest } from "./request-signal";

/** Stands in for Next.js's `NextRequest`: a subclass of the installed global `Request`. */
class SubRequest extends SignalKeepingRequest {}

const url = "http://localhost/api/public/v1/me";

describe("SignalKeepingRequest", () => {
  it("gives a subclass's request the caller's signal, with no listener or copy of it", () => {
    const controller = new AbortController();
    const request = new SubRequest(url, { signal: controller.signal });
    expect(request.signal).toBe(controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    controller.abort(new Error("client went away"));
    expect(request.signal.aborted).toBe(true);
    expect((request.signal.reason as Error).message).toBe("client went away");
  });

  it("leaves Node's Request as it is: a signal of its own that follows the caller's", () => {
    for (const Class of [Request, SignalKeepingRequest]) {
      const controller = new AbortController();
      const request = new Class(url, { signal: controller.signal });
      expect(request.signal).not.toBe(controller.signal);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
      controller.abort();
      expect(request.signal.aborted).toBe(true);
    }
  });

  it("keeps the method, headers and body of a subclass's request", async () => {
    const controller = new AbortController();
    const request = new SubRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: '{"a":1}',
      signal: controller.signal,
    });
    expect(request.method).toBe("POST");
    expect(request.headers.get("authorization")).toBe("Bearer k");
    expect(await request.clone().json()).toEqual({ a: 1 });
    expect(await request.json()).toEqual({ a: 1 });
  });

  it("answers request.signal through a Proxy that reads with itself as receiver (Next.js's static routes)", () => {
    const controller = new AbortController();
    const proxied = new Proxy(new SubRequest(url, { signal: controller.signal }), {});
    expect(proxied.signal).toBe(controller.signal);
  });

  it("makes a direct copy of a subclass's request follow its kept signal", () => {
    const controller = new AbortController();
    // `new Request(nextRequest)` in the app, where this class is the global Request.
    const copy = new SignalKeepingRequest(new SubRequest(url, { signal: controller.signal }));
    expect(copy.signal).not.toBe(controller.signal);
    expect(copy.signal.aborted).toBe(false);
    controller.abort(new Error("client went away"));
    expect(copy.signal.aborted).toBe(true);
    expect((copy.signal.reason as Error).message).toBe("client went away");
  });

  it("reads a streamed body sent with duplex half, as Next.js makes a POST's request", async () => {
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"streamed":'));
        c.enqueue(new TextEncoder().encode("true}"));
        c.close();
      },
    });
    const request = new SubRequest(url, {
      method: "POST",
      body,
      duplex: "half",
      signal: controller.signal,
    } as RequestInit);
    expect(request.signal).toBe(controller.signal);
    expect(await request.json()).toEqual({ streamed: true });
  });

  it("keeps members that an init object inherits", () => {
    const controller = new AbortController();
    const init = Object.create({ method: "PUT", signal: controller.signal }) as RequestInit;
    const request = new SubRequest(url, init);
    expect(request.method).toBe("PUT");
    expect(request.signal).toBe(controller.signal);
  });

  it("carries the kept signal into a copy and a clone", () => {
    const controller = new AbortController();
    const request = new SubRequest(url, { signal: controller.signal });
    const copy = new SubRequest(request);
    const clone = request.clone();
    expect(copy.signal).toBe(controller.signal);
    expect(clone.signal.aborted).toBe(false);
    expect(clone.url).toBe(url);
    controller.abort();
    expect(copy.signal.aborted).toBe(true);
    expect(clone.signal.aborted).toBe(true);
  });

  it("answers a request made with an aborted signal as aborted", () => {
    const request = new SubRequest(url, { signal: AbortSignal.abort(new Error("gone")) });
    expect(request.signal.aborted).toBe(true);
    expect((request.signal.reason as Error).message).toBe("gone");
  });

  it("gives a subclass's request without a signal Node's own", () => {
    const request = new SubRequest(url);
    expect(request.signal).toBeInstanceOf(AbortSignal);
    expect(request.signal.aborted).toBe(false);
  });

  it("keeps instanceof as it was for Node's requests and for subclasses", () => {
    const nodes = new Request(url);
    const sub = new SubRequest(url);
    expect(nodes instanceof SignalKeepingRequest).toBe(true);
    expect(sub instanceof SignalKeepingRequest).toBe(true);
    expect(sub instanceof Request).toBe(true);
    expect(sub instanceof SubRequest).toBe(true);
    expect(nodes instanceof SubRequest).toBe(false);
    expect({} instanceof SignalKeepingRequest).toBe(false);
  });
});

describe("installRequestSignalPassThrough", () => {
  it("installs over Node's Request only", () => {
    const target: { Request?: unknown } = { Request };
    expect(installRequestSignalPassThrough(target)).toBe(true);
    expect(target.Request).toBe(SignalKeepingRequest);
    expect(installRequestSignalPassThrough(target)).toBe(false);
    const chosen = { Request: class Other {} };
    expect(installRequestSignalPassThrough(chosen)).toBe(false);
    expect(chosen.Request).not.toBe(SignalKeepingRequest);
  });
});
