import { readFileSync } from "node:fs";
import postgres from "postgres";
import {
  ApiError,
  createClient,
  isApiError,
  OperationTimeoutError,
  type ApiErrorCode,
  type ClientOptions,
  type PlatformClient,
} from "@platform/sdk";
import type { ResponseValidator } from "@/server/testing/response-validator";
import { expect, test } from "./validated-request";

// The SDK (sdk/, @platform/sdk) against the built app over real HTTP: every Available route family,
// lists walked to their end, a create whose answer is lost and retried making one resource, and typed
// error codes. Every answer the SDK receives is checked against the document the app serves.

const demo = () =>
  JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as {
    apiKey: string;
    tenantId: string;
    integrationId: string;
  };

type Fetch = (request: Request) => Promise<Response>;

/** A fetch that checks every public API answer against the served OpenAPI document. */
function validatingFetch(validator: ResponseValidator, inner: Fetch = (r) => fetch(r)): Fetch {
  return async (request) => {
    const res = await inner(request);
    const text = await res.clone().text();
    validator.check({
      method: request.method,
      path: new URL(request.url).pathname,
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : null,
    });
    return res;
  };
}

function sdkFor(
  baseURL: string | undefined,
  validator: ResponseValidator,
  extra: Partial<ClientOptions> = {},
): PlatformClient {
  return createClient({
    baseUrl: `${baseURL}/api/public/v1`,
    apiKey: demo().apiKey,
    ...extra,
    fetch: validatingFetch(validator, extra.fetch),
  });
}

/** Every item of a list walked page by page, as ids. */
async function ids<T extends { id: string }>(items: AsyncIterable<T>): Promise<string[]> {
  const out: string[] = [];
  for await (const item of items) out.push(item.id);
  return out;
}

test("account and wallet", async ({ apiValidators, baseURL }) => {
  const sdk = sdkFor(baseURL, apiValidators.answers);
  const me = await sdk.me.get();
  expect(me.tenant.id).toBe(demo().tenantId);
  expect(me.key.scopes).toEqual(expect.arrayContaining(["cards:write", "webhooks:manage", "leads:read"]));
  const wallet = await sdk.wallet.get();
  expect(wallet).toMatchObject({ state: "ok", exchange: "active" });
  expect(wallet.balance?.currency).toBe("RUB");
});

test("conversations and messages walked to the end; cards sent into a conversation", async ({
  apiValidators,
  baseURL,
}) => {
  const sdk = sdkFor(baseURL, apiValidators.answers);
  const all = await sdk.conversations.list({ limit: 100 }).firstPage();
  expect(all.next_cursor).toBeNull();
  expect(all.data.length).toBeGreaterThan(2);
  const walked = await ids(sdk.conversations.list({ limit: 2 }));
  expect(walked).toEqual(all.data.map((c) => c.id));

  const conv = all.data.find((c) => c.channel === "api") ?? all.data[0]!;
  expect(await sdk.conversations.get(conv.id)).toMatchObject({ id: conv.id, channel: conv.channel });
  const messages = await ids(sdk.conversations.messages.list(conv.id, { limit: 7, include_deleted: true }));
  const oneGo = await sdk.conversations.messages.list(conv.id, { limit: 100, include_deleted: true }).firstPage();
  expect(messages).toEqual(oneGo.data.map((m) => m.id));
  expect(messages.length).toBeGreaterThan(7);

  const sent = await sdk.conversations.sendCards(conv.id, {
    codes: ["rain-jacket", "gift-card"],
    comment: "Two ideas from the SDK",
  });
  expect(sent).toMatchObject({ conversation_id: conv.id, cards: [{ code: "rain-jacket" }, { code: "gift-card" }] });
  const after = await sdk.conversations.messages.list(conv.id, { limit: 100 }).toArray();
  expect(after.map((m) => m.id)).toContain(sent.message_id);
});

test("cards: create, read, walk every page, change, delete; typed errors", async ({ apiValidators, baseURL }) => {
  const sdk = sdkFor(baseURL, apiValidators.answers);
  const stamp = Date.now();
  const codes = [0, 1, 2].map((i) => `sdk-${stamp}-${i}`);
  for (const code of codes)
    await sdk.cards.create({
      code,
      name: `SDK ${code}`,
      page_url: `/p/${code}`,
      buttons: [{ label: "Buy", url: "/cart" }],
    });
  expect(await sdk.cards.get(codes[0]!)).toMatchObject({
    code: codes[0],
    page_url: `https://demo-shop.example/p/${codes[0]}`,
  });

  const onePage = await sdk.cards.list({ limit: 100 }).firstPage();
  expect(onePage.next_cursor).toBeNull();
  const walked: string[] = [];
  let pages = 0;
  for await (const page of sdk.cards.list({ limit: 1 }).pages()) {
    pages++;
    walked.push(...page.data.map((c) => c.code));
  }
  expect(walked).toEqual(onePage.data.map((c) => c.code));
  expect(pages).toBe(walked.length);
  expect(walked).toEqual(expect.arrayContaining(codes));

  expect(await sdk.cards.update(codes[1]!, { badge: "SDK", active: false })).toMatchObject({
    code: codes[1],
    badge: "SDK",
    active: false,
  });
  const aiOnly = await sdk.cards.list({ ai_enabled: true }).toArray();
  expect(aiOnly.every((c) => c.ai_enabled)).toBe(true);

  const missing = await sdk.cards.get(`sdk-missing-${stamp}`).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(ApiError);
  const e = missing as ApiError;
  const code: ApiErrorCode = e.code;
  expect([code, e.status]).toEqual(["not_found", 404]);
  expect(e.requestId).toMatch(/^req_/);

  const invalid = (await sdk.cards
    .create({ code: "Bad Code", name: "", page_url: "javascript:alert(1)" })
    .catch((x: unknown) => x)) as ApiError;
  expect(invalid.code).toBe("validation_failed");
  expect(invalid.status).toBe(422);
  expect(invalid.errors.map((f) => f.field).sort()).toEqual(["/code", "/name", "/page_url"]);

  const key = crypto.randomUUID();
  await sdk.cards.create({ code: `sdk-${stamp}-k`, name: "Keyed" }, { idempotencyKey: key });
  const conflict = await sdk.cards
    .create({ code: `sdk-${stamp}-other`, name: "Other" }, { idempotencyKey: key })
    .catch((x: unknown) => x);
  expect(isApiError(conflict, "idempotency_conflict")).toBe(true);
  codes.push(`sdk-${stamp}-k`);

  for (const c of codes) await sdk.cards.delete(c);
  expect(isApiError(await sdk.cards.delete(codes[0]!).catch((x: unknown) => x), "not_found")).toBe(true);

  const stranger = createClient({
    baseUrl: `${baseURL}/api/public/v1`,
    apiKey: "sk_live_ru_nope",
    fetch: validatingFetch(apiValidators.answers),
  });
  expect(isApiError(await stranger.me.get().catch((x: unknown) => x), "invalid_api_key")).toBe(true);
});

test("a create whose answer is lost is retried with the same Idempotency-Key and makes one resource", async ({
  apiValidators,
  baseURL,
}) => {
  // The first POST reaches the app and is carried out; its answer is then lost (the connection drops).
  const sentKeys: (string | null)[] = [];
  let firstAnswer: unknown = null;
  const lossy: Fetch = async (request) => {
    if (request.method === "POST") sentKeys.push(request.headers.get("idempotency-key"));
    const res = await fetch(request);
    if (request.method === "POST" && sentKeys.length === 1) {
      firstAnswer = await res.json();
      throw new TypeError("fetch failed: socket hang up");
    }
    return res;
  };
  const sdk = sdkFor(baseURL, apiValidators.answers, { fetch: lossy, initialDelayMs: 50 });
  const code = `sdk-retry-${Date.now()}`;
  const card = await sdk.cards.create({ code, name: "Retried" });
  expect(sentKeys).toHaveLength(2);
  expect(sentKeys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(sentKeys[1]).toBe(sentKeys[0]);
  // Without the key the retry would have been refused: the code was already taken by the first attempt.
  expect(card).toEqual(firstAnswer);
  const plain = sdkFor(baseURL, apiValidators.answers);
  expect((await plain.cards.list({ limit: 100 }).toArray()).filter((c) => c.code === code)).toHaveLength(1);
  await plain.cards.delete(code);

  // The same for a webhook subscription: one subscription; the replayed answer carries no secret.
  sentKeys.length = 0;
  const url = `https://localhost/sdk-retry-${Date.now()}`;
  const hook = await sdk.webhooks.create({ url, events: ["lead.*"] });
  expect(sentKeys).toEqual([sentKeys[0], sentKeys[0]]);
  expect((firstAnswer as { secret: string }).secret).toMatch(/^whsec_/);
  expect(hook.secret).toBeNull();
  expect(hook.id).toBe((firstAnswer as { id: string }).id);
  expect((await plain.webhooks.list().toArray()).filter((w) => w.url === url)).toHaveLength(1);
  await plain.webhooks.delete(hook.id);
});

test("leads, articles, strategist and the dashboard", async ({ apiValidators, baseURL }) => {
  const sdk = sdkFor(baseURL, apiValidators.answers);
  const leads = await sdk.leads.list({ limit: 100 }).firstPage();
  expect(await ids(sdk.leads.list({ limit: 3 }))).toEqual(leads.data.map((l) => l.id));
  expect(leads.data.every((l) => !l.archived)).toBe(true);
  const archived = await sdk.leads.list({ archived: true }).toArray();
  expect(archived.length).toBeGreaterThan(0);
  expect(archived.every((l) => l.archived)).toBe(true);
  const lead = await sdk.leads.get(leads.data[0]!.id);
  expect(lead.etag).toBe(leads.data[0]!.etag);
  expect(
    isApiError(
      await sdk.leads
        .list({ include_deleted: true })
        .firstPage()
        .catch((x: unknown) => x),
      "validation_failed",
    ),
  ).toBe(true);

  const articles = await sdk.articles.list({ limit: 100 }).firstPage();
  expect(await ids(sdk.articles.list({ limit: 2 }))).toEqual(articles.data.map((a) => a.id));
  const first = articles.data[0]!;
  expect(typeof (await sdk.articles.get(first.id)).content).toBe("string");
  const blocks = await sdk.articles.get(first.id, { format: "blocks" });
  expect(Array.isArray(blocks.content)).toBe(true);
  expect(typeof (await sdk.articles.get(first.id, { format: "markdown" })).content).toBe("string");

  const reports = await sdk.strategist.reports.list({ limit: 1 }).toArray();
  expect(reports.length).toBeGreaterThan(0);
  expect((await sdk.strategist.reports.get(reports[0]!.id)).id).toBe(reports[0]!.id);
  const topics = await sdk.strategist.topics.list({ limit: 2 }).toArray();
  expect(topics.length).toBeGreaterThan(2);
  expect((await sdk.strategist.topics.get(topics[0]!.id)).id).toBe(topics[0]!.id);
  const actions = await sdk.strategist.actions.list({ limit: 2 }).toArray();
  expect(actions.length).toBeGreaterThan(2);
  expect((await sdk.strategist.actions.get(actions[0]!.id)).id).toBe(actions[0]!.id);
  const proposed = await sdk.strategist.actions.list({ status: "proposed" }).toArray();
  expect(proposed.every((a) => a.status === "proposed")).toBe(true);

  const overview = await sdk.dashboards.overview({ blocks: "kpi,funnel" });
  expect(Object.keys(overview.data.blocks).sort()).toEqual(["funnel", "kpi"]);
});

test("webhooks: create, read, change, test, deliveries, rotate, delete", async ({ apiValidators, baseURL }) => {
  const sdk = sdkFor(baseURL, apiValidators.answers);
  const url = `https://localhost/sdk-${Date.now()}`;
  const hook = await sdk.webhooks.create({ url, events: ["lead.*", "message.created"], description: "SDK e2e" });
  expect(hook.secret).toMatch(/^whsec_/);
  expect((await sdk.webhooks.list().toArray()).map((w) => w.id)).toContain(hook.id);
  expect(await sdk.webhooks.get(hook.id)).toMatchObject({ id: hook.id, url, status: "active" });
  expect(await sdk.webhooks.update(hook.id, { status: "paused" })).toMatchObject({ status: "paused" });
  expect(isApiError(await sdk.webhooks.test(hook.id).catch((x: unknown) => x), "invalid_state")).toBe(true);
  await sdk.webhooks.update(hook.id, { status: "active", description: "SDK e2e, resumed" });

  const queued = await sdk.webhooks.test(hook.id);
  expect(queued).toMatchObject({ type: "webhook.test", status: "queued" });
  // Nothing listens on https://localhost:443: the app's worker journals the attempt as network_error.
  await expect(async () => {
    const journal = await sdk.webhooks.deliveries.list(hook.id).toArray();
    expect(journal.find((d) => d.event_id === queued.event_id)).toMatchObject({
      state: "failed",
      error: "network_error",
      attempt: 1,
    });
  }).toPass({ timeout: 20_000 });
  expect(await sdk.webhooks.deliveries.list(hook.id, { state: "delivered" }).toArray()).toEqual([]);

  const rotated = await sdk.webhooks.rotateSecret(hook.id);
  expect(rotated.secret).toMatch(/^whsec_/);
  expect(rotated.secret).not.toBe(hook.secret);
  expect(rotated.previous_secret_expires_at).not.toBeNull();

  await sdk.webhooks.delete(hook.id);
  expect(isApiError(await sdk.webhooks.get(hook.id).catch((x: unknown) => x), "not_found")).toBe(true);
});

test("operations: read one, wait for a finished one, time out on a running one", async ({ apiValidators, baseURL }) => {
  const sdk = sdkFor(baseURL, apiValidators.answers);
  // No Available route starts an operation; the demo seeds an AI reply and an article generation that
  // succeeded. A running one is written here as a worker holds one (a lease of ten minutes, so no worker of
  // the app takes it over) and removed at the end. Ids come from the app's own database, served on its
  // loopback socket (the operator CLI's way in).
  const port = Number(readFileSync(".data/e2e/pglite.port", "utf8").trim());
  const sql = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
  const rows = await sql<
    { id: string; status: string; type: string }[]
  >`select id, status, type from operations where tenant_id = ${demo().tenantId} and integration_id = ${demo().integrationId}`;
  const [running] = await sql<{ id: string; status: string }[]>`
    insert into operations (tenant_id, integration_id, type, status, locked_until, deadline_at)
    values (${demo().tenantId}, ${demo().integrationId}, 'strategist.turn', 'running', now() + interval '10 minutes',
            now() + interval '10 minutes')
    returning id, status`;
  const done = rows.find((r) => r.status === "succeeded" && r.type === "conversation.ai_reply")!;
  expect(done && running).toBeTruthy();

  expect(await sdk.operations.get(done.id)).toMatchObject({
    id: done.id,
    status: "succeeded",
    resource: { type: "message" },
  });
  expect(await sdk.waitForOperation(done.id, { timeoutMs: 5_000 })).toMatchObject({ id: done.id, status: "succeeded" });
  const late = await sdk.waitForOperation(running!.id, { timeoutMs: 1_200, intervalMs: 300 }).catch((x: unknown) => x);
  expect(late).toBeInstanceOf(OperationTimeoutError);
  expect((late as OperationTimeoutError).operation).toMatchObject({ id: running!.id, status: "running" });
  expect(isApiError(await sdk.operations.get(crypto.randomUUID()).catch((x: unknown) => x), "not_found")).toBe(true);
  await sql`delete from operations where id = ${running!.id}`;
  await sql.end();
});
