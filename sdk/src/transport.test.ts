import { describe, expect, it } from "vitest";
import { ApiConnectionError } from "./errors";
import { createTransport, isRetrySafe, retryDelayMs } from "./transport";

/** A fetch that answers from a script and records what it was sent (headers and body bytes as text). */
function scripted(...answers: (Response | Error | (() => Promise<Response>))[]) {
  const sent: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = async (r: Request): Promise<Response> => {
    sent.push({ method: r.method, url: r.url, headers: r.headers, body: await r.text() });
    const next = answers.shift();
    if (!next) throw new Error("no more scripted answers");
    if (next instanceof Error) throw next;
    return typeof next === "function" ? next() : next;
  };
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json", ...headers },
  });
const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(
    status,
    { type: `https://x/developers/errors#${code}`, title: code, status, code, detail: code, request_id: "req_1" },
    headers,
  );

/**
 * Requests a fake fetch is "sending", held from module scope as a real fetch's sockets hold theirs: a
 * request reachable from nowhere is collected with its AbortSignal.timeout, whose timer then never fires.
 */
const inFlight = new Set<Request>();

/** Records pauses instead of waiting. */
function pauses() {
  const waited: number[] = [];
  return { waited, sleep: async (ms: number) => void waited.push(ms) };
}

const post = (body = '{"code":"socks","name":"Socks"}', headers: Record<string, string> = {}) =>
  new Request("https://api.example.ru/api/public/v1/cards", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
const get = (path = "/cards") => new Request(`https://api.example.ru/api/public/v1${path}`);

describe("the transport", () => {
  it("adds one Idempotency-Key to a POST and sends the same key and bytes on every retry (503 Retry-After, 429, 409 operation_in_progress)", async () => {
    const { fetch, sent } = scripted(
      problem(503, "service_unavailable", { "retry-after": "2" }),
      problem(429, "rate_limited", { "retry-after": "1" }),
      problem(409, "operation_in_progress"),
      json(201, { code: "socks" }),
    );
    const p = pauses();
    let n = 0;
    const send = createTransport({ fetch, sleep: p.sleep, random: () => 0.5, newIdempotencyKey: () => `key-${++n}` });
    const res = await send(post());
    expect(res.status).toBe(201);
    expect(sent).toHaveLength(4);
    expect(sent.map((s) => s.headers.get("idempotency-key"))).toEqual(["key-1", "key-1", "key-1", "key-1"]);
    expect(new Set(sent.map((s) => s.body))).toEqual(new Set(['{"code":"socks","name":"Socks"}']));
    expect(sent.every((s) => s.method === "POST" && s.headers.get("content-type") === "application/json")).toBe(true);
    // Retry-After in seconds is waited exactly; the 409 had none: backoff for retry #2 = 500*2^2 = 2000, jitter 0.5 → 1500.
    expect(p.waited).toEqual([2000, 1000, 1500]);
    // A second call is a new operation: a new key.
    const { fetch: f2, sent: s2 } = scripted(json(201, {}));
    await createTransport({ fetch: f2, newIdempotencyKey: () => `key-${++n}` })(post());
    expect(s2[0]!.headers.get("idempotency-key")).toBe("key-2");
  });

  it("keeps a key the caller gave, on a PATCH too", async () => {
    const { fetch, sent } = scripted(problem(503, "service_unavailable", { "retry-after": "0" }), json(200, {}));
    const send = createTransport({ fetch, sleep: pauses().sleep, newIdempotencyKey: () => "generated" });
    await send(
      new Request("https://x/cards/a", { method: "PATCH", body: "{}", headers: { "Idempotency-Key": "mine" } }),
    );
    expect(sent.map((s) => s.headers.get("idempotency-key"))).toEqual(["mine", "mine"]);
  });

  it("honours Retry-After given as an HTTP date", async () => {
    const { fetch } = scripted(
      problem(429, "rate_limited", { "retry-after": new Date(Date.now() + 3_000).toUTCString() }),
      json(200, {}),
    );
    const p = pauses();
    await createTransport({ fetch, sleep: p.sleep })(get());
    expect(p.waited).toHaveLength(1);
    expect(p.waited[0]).toBeGreaterThanOrEqual(2_000);
    expect(p.waited[0]).toBeLessThanOrEqual(3_000);
  });

  it("does not retry what is not retry-safe: DELETE, or a POST sent without a key", async () => {
    const del = scripted(problem(503, "service_unavailable", { "retry-after": "0" }));
    const r1 = await createTransport({ fetch: del.fetch, sleep: pauses().sleep })(
      new Request("https://x/cards/a", { method: "DELETE" }),
    );
    expect(r1.status).toBe(503);
    expect(del.sent).toHaveLength(1);
    expect(del.sent[0]!.headers.has("idempotency-key")).toBe(false);

    const bare = scripted(problem(429, "rate_limited", { "retry-after": "0" }));
    const r2 = await createTransport({ fetch: bare.fetch, sleep: pauses().sleep, idempotencyKeys: false })(post());
    expect(r2.status).toBe(429);
    expect(bare.sent).toHaveLength(1);
    expect(bare.sent[0]!.headers.has("idempotency-key")).toBe(false);

    const lost = scripted(new TypeError("fetch failed"));
    const err = await createTransport({ fetch: lost.fetch, sleep: pauses().sleep, idempotencyKeys: false })(
      post(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as ApiConnectionError).attempts).toBe(1);
  });

  it("does not retry answers that a repeat cannot change: 400, 404, 409 idempotency_conflict, 422", async () => {
    for (const [status, code] of [
      [400, "bad_request"],
      [404, "not_found"],
      [409, "idempotency_conflict"],
      [409, "invalid_state"],
      [422, "validation_failed"],
    ] as const) {
      const { fetch, sent } = scripted(problem(status, code));
      const res = await createTransport({ fetch, sleep: pauses().sleep })(post());
      expect(res.status, code).toBe(status);
      expect(sent, code).toHaveLength(1);
      expect((await res.json()).code, "the body is still readable").toBe(code);
    }
  });

  it("retries a GET after 500, 502, 504 and a lost connection with exponential backoff and jitter", async () => {
    const { fetch, sent } = scripted(
      problem(500, "internal_error"),
      new Response("bad gateway", { status: 502 }),
      new TypeError("fetch failed"),
      json(200, { ok: true }),
    );
    const p = pauses();
    const res = await createTransport({ fetch, sleep: p.sleep, random: () => 0, maxRetries: 3 })(get());
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(4);
    expect(p.waited).toEqual([250, 500, 1000]); // half of 500, 1000, 2000 with jitter 0
    expect(sent.every((s) => !s.headers.has("idempotency-key"))).toBe(true);
  });

  it("gives up after maxRetries: the last answer is returned, a last lost connection is thrown", async () => {
    const { fetch, sent } = scripted(
      ...Array.from({ length: 3 }, () => problem(503, "service_unavailable", { "retry-after": "0" })),
    );
    const res = await createTransport({ fetch, sleep: pauses().sleep, maxRetries: 2 })(get());
    expect(res.status).toBe(503);
    expect(sent).toHaveLength(3);

    const lost = scripted(new TypeError("fetch failed"), new TypeError("fetch failed"), new TypeError("fetch failed"));
    const err = (await createTransport({ fetch: lost.fetch, sleep: pauses().sleep, maxRetries: 2 })(get()).catch(
      (e: unknown) => e,
    )) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.attempts).toBe(3);
    expect(err.timedOut).toBe(false);
    expect(err.message).toMatch(/GET \/api\/public\/v1\/cards: connection failed \(fetch failed\) after 3 attempt/);
  });

  it("does not wait out a Retry-After longer than maxRetryAfterMs", async () => {
    const { fetch, sent } = scripted(problem(429, "rate_limited", { "retry-after": "120" }));
    const p = pauses();
    const res = await createTransport({ fetch, sleep: p.sleep, maxRetryAfterMs: 60_000 })(get());
    expect(res.status).toBe(429);
    expect(sent).toHaveLength(1);
    expect(p.waited).toEqual([]);
  });

  it("bounds each attempt by timeoutMs and reports the timeout", async () => {
    const hang = (r: Request) =>
      new Promise<Response>(
        (_, reject) => (inFlight.add(r), r.signal.addEventListener("abort", () => reject(r.signal.reason))),
      );
    const err = (await createTransport({ fetch: hang, timeoutMs: 30, maxRetries: 1, sleep: pauses().sleep })(
      get(),
    ).catch((e: unknown) => e)) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.timedOut).toBe(true);
    expect(err.attempts).toBe(2);
    expect(err.message).toMatch(/no answer within 30 ms/);
  });

  it("stops at once when the caller aborts, during a pause too", async () => {
    const { fetch, sent } = scripted(problem(503, "service_unavailable", { "retry-after": "30" }), json(200, {}));
    const ac = new AbortController();
    const pending = createTransport({ fetch })(new Request("https://x/cards", { signal: ac.signal }));
    await new Promise((r) => setTimeout(r, 20));
    ac.abort(new Error("shutting down"));
    await expect(pending).rejects.toThrow("shutting down");
    expect(sent).toHaveLength(1);
  });
});

describe("retry rules", () => {
  it("GET and HEAD are retry-safe; POST and PATCH only with a key; DELETE and PUT never", () => {
    const none = new Headers();
    const keyed = new Headers({ "Idempotency-Key": "k" });
    expect(["GET", "HEAD"].map((m) => isRetrySafe(m, none))).toEqual([true, true]);
    expect(["POST", "PATCH"].map((m) => [isRetrySafe(m, none), isRetrySafe(m, keyed)])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(["DELETE", "PUT"].map((m) => isRetrySafe(m, keyed))).toEqual([false, false]);
  });

  it("backoff doubles from initialDelayMs up to maxDelayMs, jittered between half and all of it", () => {
    const o = { maxRetries: 9, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, o, () => 0.999999))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, o, () => 0))).toEqual([
      250, 500, 1000, 2000, 4000, 4000,
    ]);
    expect(retryDelayMs(3, "7", o, () => 0)).toBe(7000);
    expect(retryDelayMs(0, "61", o, () => 0)).toBeNull();
    expect(retryDelayMs(1, "soon", o, () => 0)).toBe(500); // unreadable Retry-After: backoff
  });
});
