import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createClient, SDK_VERSION } from "./client";
import { ApiError, isApiError, OperationTimeoutError } from "./errors";

const BASE = "https://api.example.ru/api/public/v1";

/** A fake API: `route` answers each request; every request is recorded with its body text. */
function fakeApi(route: (r: Request, url: URL) => Response | Promise<Response>) {
  const sent: { method: string; url: URL; headers: Headers; body: string }[] = [];
  const fetch = async (r: Request) => {
    const url = new URL(r.url);
    const body = await r.clone().text();
    sent.push({ method: r.method, url, headers: r.headers, body });
    return route(r, url);
  };
  return { fetch, sent };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": "req_ok", ...headers },
  });
const problem = (
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  new Response(
    JSON.stringify({
      type: `https://api.example.ru/developers/errors#${code}`,
      title: code,
      status,
      code,
      detail: `detail of ${code}`,
      request_id: "req_abc",
      ...extra,
    }),
    {
      status,
      headers: { "content-type": "application/problem+json", "x-request-id": "req_abc", ...headers },
    },
  );

const noSleep = async () => {};
const card = (code: string) => ({
  id: `id-${code}`,
  code,
  name: code,
  description: null,
  image_url: null,
  price_text: null,
  badge: null,
  page_url: null,
  buttons: [],
  ai_enabled: false,
  sort: 0,
  active: true,
  created_at: "2026-10-01T00:00:00.000Z",
  updated_at: "2026-10-01T00:00:00.000Z",
});

describe("createClient", () => {
  it("sends the key, a User-Agent and JSON; a create carries a new Idempotency-Key per call, reused by its retries", async () => {
    let calls = 0;
    const api = fakeApi((r) =>
      r.method === "POST" && ++calls === 1
        ? problem(503, "service_unavailable", {}, { "retry-after": "0" })
        : json(card("socks"), 201),
    );
    let n = 0;
    const client = createClient({
      baseUrl: `${BASE}/`,
      apiKey: "sk_live_ru_x",
      fetch: api.fetch,
      sleep: noSleep,
      newIdempotencyKey: () => `k${++n}`,
    });
    const created = await client.cards.create({ code: "socks", name: "Socks" });
    expect(created.code).toBe("socks");
    await client.cards.create({ code: "hats", name: "Hats" });
    await client.cards.create({ code: "mine", name: "Mine" }, { idempotencyKey: "given" });
    expect(api.sent.map((s) => [s.url.pathname, s.headers.get("idempotency-key")])).toEqual([
      ["/api/public/v1/cards", "k1"],
      ["/api/public/v1/cards", "k1"],
      ["/api/public/v1/cards", "k2"],
      ["/api/public/v1/cards", "given"],
    ]);
    const first = api.sent[0]!;
    expect(first.headers.get("authorization")).toBe("Bearer sk_live_ru_x");
    expect(first.headers.get("user-agent")).toMatch(/^platform-sdk-js\/\d+\.\d+\.\d+$/);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(first.body)).toEqual({ code: "socks", name: "Socks" });
  });

  it("puts path parameters in the path, encoded, and numbers and booleans in the query as text", async () => {
    const api = fakeApi(() => json({ data: [], next_cursor: null }));
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch });
    await client.cards.list({ limit: 100, ai_enabled: true }).toArray();
    await client.conversations.messages.list("c/1", { limit: 5, include_deleted: true }).firstPage();
    expect(api.sent.map((s) => s.url.pathname + s.url.search)).toEqual([
      "/api/public/v1/cards?limit=100&ai_enabled=true",
      "/api/public/v1/conversations/c%2F1/messages?limit=5&include_deleted=true",
    ]);
  });

  it("throws ApiError with the problem's typed code, status, request id and field errors", async () => {
    const errors = [{ field: "/code", code: "invalid_format", message: "may hold only lowercase latin letters" }];
    const api = fakeApi((r) =>
      r.method === "POST" ? problem(422, "validation_failed", { errors }) : problem(404, "not_found"),
    );
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch });
    const err = await client.cards.create({ code: "Bad Code", name: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect([e.code, e.status, e.requestId]).toEqual(["validation_failed", 422, "req_abc"]);
    expect(e.errors).toEqual(errors);
    expect(e.message).toBe("validation_failed (422): detail of validation_failed [req_abc]");
    expect(e.problem?.title).toBe("validation_failed");
    const missing = await client.cards.get("nope").catch((x: unknown) => x);
    expect(isApiError(missing, "not_found")).toBe(true);
    expect(isApiError(missing, "rate_limited")).toBe(false);
    expect((missing as ApiError).errors).toEqual([]);
  });

  it("gives up on a long Retry-After and reports it; an answer that is not a problem is unexpected_response", async () => {
    const api = fakeApi((_r, url) =>
      url.pathname.endsWith("/me")
        ? problem(429, "rate_limited", {}, { "retry-after": "3600" })
        : new Response("<html>bad gateway</html>", { status: 502, headers: { "x-request-id": "req_proxy" } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch, sleep: noSleep, maxRetries: 1 });
    const limited = (await client.me.get().catch((e: unknown) => e)) as ApiError;
    expect([limited.code, limited.status, limited.retryAfterSec]).toEqual(["rate_limited", 429, 3600]);
    expect(api.sent).toHaveLength(1);
    const proxy = (await client.wallet.get().catch((e: unknown) => e)) as ApiError;
    expect([proxy.code, proxy.status, proxy.requestId, proxy.problem]).toEqual([
      "unexpected_response",
      502,
      "req_proxy",
      null,
    ]);
    expect(api.sent).toHaveLength(3); // 502 retried once for a GET
  });

  it("walks every page of a list, passing next_cursor back, and stops requesting once toArray has enough", async () => {
    const pages: Record<string, { data: unknown[]; next_cursor: string | null }> = {
      "": { data: [card("a"), card("b")], next_cursor: "c1" },
      c1: { data: [card("c"), card("d")], next_cursor: "c2" },
      c2: { data: [card("e")], next_cursor: null },
    };
    const api = fakeApi((_r, url) => json(pages[url.searchParams.get("cursor") ?? ""]));
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch });
    const codes: string[] = [];
    for await (const c of client.cards.list({ limit: 2 })) codes.push(c.code);
    expect(codes).toEqual(["a", "b", "c", "d", "e"]);
    expect(api.sent.map((s) => s.url.search)).toEqual(["?limit=2", "?limit=2&cursor=c1", "?limit=2&cursor=c2"]);

    api.sent.length = 0;
    expect((await client.cards.list({ limit: 2 }).toArray({ max: 3 })).map((c) => c.code)).toEqual(["a", "b", "c"]);
    expect(api.sent).toHaveLength(2);

    api.sent.length = 0;
    const sizes: number[] = [];
    for await (const page of client.cards.list({ limit: 2, cursor: "c1" }).pages()) sizes.push(page.data.length);
    expect(sizes).toEqual([2, 1]);
    expect(api.sent[0]!.url.search).toBe("?limit=2&cursor=c1");
  });

  it("events.list walks the journal with its filters; events.get reads one by id", async () => {
    const event = (id: string) => ({
      id,
      type: "lead.created",
      api_version: "2026-10-01",
      created_at: "2026-10-01T00:00:00.000Z",
      livemode: true,
      data: { lead_id: "l1", version: 1 },
    });
    const api = fakeApi((_r, url) =>
      url.pathname.endsWith("/events")
        ? json(
            url.searchParams.get("cursor")
              ? { data: [event("e2")], next_cursor: null }
              : { data: [event("e1")], next_cursor: "c1" },
          )
        : json(event(url.pathname.split("/").at(-1)!)),
    );
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch });
    const walked = await client.events.list({ type: "lead.*", created_after: "2026-10-01T00:00:00Z" }).toArray();
    expect(walked.map((e) => e.id)).toEqual(["e1", "e2"]);
    expect(api.sent.map((s) => [s.method, s.url.pathname, s.url.search])).toEqual([
      ["GET", "/api/public/v1/events", "?type=lead.*&created_after=2026-10-01T00%3A00%3A00Z"],
      ["GET", "/api/public/v1/events", "?type=lead.*&created_after=2026-10-01T00%3A00%3A00Z&cursor=c1"],
    ]);
    api.sent.length = 0;
    expect(await client.events.get("e 3")).toEqual(event("e%203"));
    expect(api.sent.map((s) => [s.method, s.url.pathname])).toEqual([["GET", "/api/public/v1/events/e%203"]]);
  });

  it("stops a walk whose answer repeats its cursor instead of looping", async () => {
    const api = fakeApi(() => json({ data: [card("a")], next_cursor: "same" }));
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch });
    await expect(client.cards.list().toArray()).rejects.toThrow(/repeated cursor same/);
    expect(api.sent).toHaveLength(2);
  });

  it("waitForOperation reads until the operation is finished, and times out with the last state", async () => {
    const states = ["queued", "running", "running", "succeeded"];
    const op = (id: string, status: string) => ({
      operation: {
        id,
        type: "article.generation",
        status,
        created_at: "2026-10-01T00:00:00.000Z",
        ...(status === "succeeded" ? { completed_at: "2026-10-01T00:01:00.000Z" } : {}),
      },
    });
    const api = fakeApi((_r, url) =>
      url.pathname.endsWith("/op_1") ? json(op("op_1", states.shift() ?? "succeeded")) : json(op("op_2", "running")),
    );
    const waited: number[] = [];
    const client = createClient({
      baseUrl: BASE,
      apiKey: "k",
      fetch: api.fetch,
      sleep: async (ms) => void waited.push(ms),
    });
    const done = await client.waitForOperation("op_1", { timeoutMs: 60_000, intervalMs: 100, maxIntervalMs: 200 });
    expect(done).toMatchObject({ id: "op_1", status: "succeeded", completed_at: "2026-10-01T00:01:00.000Z" });
    expect(waited).toEqual([100, 150, 200]);

    const slow = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch });
    const err = await slow.waitForOperation("op_2", { timeoutMs: 50, intervalMs: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperationTimeoutError);
    expect((err as OperationTimeoutError).operation.status).toBe("running");
    expect((err as OperationTimeoutError).message).toBe("operation op_2 is still running after 50 ms");
  });

  it("the raw client goes through the same transport: key, retries", async () => {
    let n = 0;
    const api = fakeApi(() =>
      ++n === 1
        ? problem(503, "service_unavailable", {}, { "retry-after": "0" })
        : json({ type: "webhook.test", status: "queued", event_id: "evt_1" }, 202),
    );
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch, sleep: noSleep });
    const r = await client.raw.POST("/webhooks/{id}/test", {
      params: { path: { id: "w1" }, header: { "Idempotency-Key": "explicit" } },
    });
    expect(r.data).toEqual({ type: "webhook.test", status: "queued", event_id: "evt_1" });
    expect(api.sent.map((s) => [s.headers.get("idempotency-key"), s.headers.get("authorization")])).toEqual([
      ["explicit", "Bearer k"],
      ["explicit", "Bearer k"],
    ]);
  });

  it("testHelpers.setWallet posts the change to /test-helpers/wallet with an Idempotency-Key and returns the wallet", async () => {
    const wallet = {
      balance: { amount: "-50.00", currency: "RUB" },
      state: "negative",
      exchange: "suspended",
      topup_url: "https://app.example.ru/console/wallet",
      daily_spend: { limit: null, used: { amount: "0.00", currency: "RUB" } },
    };
    const api = fakeApi(() => json(wallet));
    const client = createClient({ baseUrl: BASE, apiKey: "k", fetch: api.fetch, newIdempotencyKey: () => "key-1" });
    expect(await client.testHelpers.setWallet({ balance: "-50.00" })).toEqual(wallet);
    const [sent] = api.sent;
    expect([sent!.method, sent!.url.pathname, sent!.headers.get("idempotency-key"), JSON.parse(sent!.body)]).toEqual([
      "POST",
      "/api/public/v1/test-helpers/wallet",
      "key-1",
      { balance: "-50.00" },
    ]);
  });

  it("testHelpers.emitEvent posts the type with an Idempotency-Key and returns the sample event", async () => {
    const event = {
      id: "0b0f4f4e-0000-4000-8000-000000000001",
      type: "lead.created",
      api_version: "2026-10-01",
      created_at: "2026-10-01T00:00:00.000Z",
      livemode: false,
      data: { lead_id: "l1", version: 1 },
    };
    const api = fakeApi(() => json(event, 202));
    const client = createClient({ baseUrl: BASE, apiKey: "sk_test", fetch: api.fetch, newIdempotencyKey: () => "k1" });
    expect(await client.testHelpers.emitEvent("lead.created")).toEqual(event);
    expect(api.sent.map((s) => [s.method, s.url.pathname, s.body, s.headers.get("idempotency-key")])).toEqual([
      ["POST", "/api/public/v1/test-helpers/events", JSON.stringify({ type: "lead.created" }), "k1"],
    ]);
  });

  it("sends the package's own version in User-Agent", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      name: string;
      version: string;
    };
    expect([pkg.name, SDK_VERSION]).toEqual(["@platform/sdk", pkg.version]);
  });

  it("refuses to start without a base URL or a key", () => {
    expect(() => createClient({ baseUrl: "", apiKey: "k" })).toThrow(/baseUrl is required/);
    expect(() => createClient({ baseUrl: BASE, apiKey: "" })).toThrow(/apiKey is required/);
  });
});
