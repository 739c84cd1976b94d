import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./validated-request";

// A black-box walk over every documented operation of the public API with the demo data, the way an
// integrator's client uses it (filters, cursors, formats, writes with and without Idempotency-Key), and
// a few requests the API refuses. Every answer and every accepted request is checked against the served
// document (./validated-request); with E2E_PRISM=1 the walk also goes through Prism's proxy, which must
// find no violation for any answer or any accepted request (.ci/run).

const demo = () => JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as { apiKey: string };
const api = (path: string) => `/api/public/v1${path}`;
const auth = () => ({ authorization: `Bearer ${demo().apiKey}` });
const idem = () => ({ ...auth(), "idempotency-key": randomUUID() });

type Page = { data: Record<string, unknown>[]; next_cursor: string | null };

async function read<T = Page>(request: APIRequestContext, path: string): Promise<T> {
  const r = await request.get(api(path), { headers: auth() });
  expect(r.status(), `GET ${path}`).toBe(200);
  return (await r.json()) as T;
}

/** The first item of a list, which the demo data is expected to fill. */
async function first(request: APIRequestContext, path: string): Promise<Record<string, unknown>> {
  const page = await read(request, path);
  expect(page.data.length, `GET ${path} has items`).toBeGreaterThan(0);
  return page.data[0];
}

test("account, cards and conversations: lists with filters and cursors, and one of each", async ({ request }) => {
  await read(request, "/me");
  await read(request, "/wallet");

  const cards = await read(request, "/cards?limit=1");
  expect(cards.next_cursor).not.toBeNull();
  await read(request, `/cards?limit=1&cursor=${encodeURIComponent(cards.next_cursor!)}`);
  await read(request, "/cards?ai_enabled=true");
  await read(request, `/cards/${String(cards.data[0].code)}`);

  await read(request, "/conversations?limit=2&channel=telegram&mode=ai&include_deleted=false");
  await read(request, "/conversations?updated_after=2026-10-01T00:10:00Z");
  await read(request, "/conversations?updated_after=2026-10-01T03:10:00.5%2B03:00");
  const conversation = await first(request, "/conversations?limit=1");
  await read(request, `/conversations/${String(conversation.id)}`);
  const messages = await read(request, `/conversations/${String(conversation.id)}/messages?limit=2`);
  if (messages.next_cursor)
    await read(
      request,
      `/conversations/${String(conversation.id)}/messages?limit=2&cursor=${encodeURIComponent(messages.next_cursor)}`,
    );
  await read(request, `/conversations/${String(conversation.id)}/messages?include_deleted=true`);
});

test("leads, articles, strategist, dashboards and operations", async ({ request }) => {
  await read(request, "/leads?limit=2&status=won");
  await read(request, "/leads?archived=true&updated_since=2026-10-01");
  await read(request, "/leads?updated_after=2026-10-01T00:00:00Z&include_deleted=false");
  const lead = await first(request, "/leads?limit=1");
  const one = await request.get(api(`/leads/${String(lead.id)}`), { headers: auth() });
  expect(one.status()).toBe(200);
  expect(one.headers().etag).toBe((await one.json()).etag);

  await read(request, "/articles?limit=3&status=published");
  const article = await first(request, "/articles?limit=1");
  for (const format of ["html", "markdown", "blocks"])
    await read(request, `/articles/${String(article.id)}?format=${format}`);
  await read(request, `/articles/${String(article.id)}`);

  await read(request, "/strategist/reports?limit=2&report_type=daily");
  const report = await first(request, "/strategist/reports?limit=1");
  await read(request, `/strategist/reports/${String(report.id)}`);
  await read(request, "/strategist/topics?limit=3&status=proposed");
  const topic = await first(request, "/strategist/topics?limit=1");
  await read(request, `/strategist/topics/${String(topic.id)}`);
  const action = await first(request, "/strategist/actions?limit=3");
  await read(request, `/strategist/actions/${String(action.id)}`);

  await read(request, "/dashboards/overview");
  await read(request, "/dashboards/overview?from=2026-11-01&blocks=kpi,funnel,status");

  const missing = await request.get(api(`/operations/${randomUUID()}`), { headers: auth() });
  expect(missing.status()).toBe(404);
});

test("card and conversation writes: Idempotency-Key required on POST, optional on PATCH, ignored on DELETE", async ({
  request,
}) => {
  const code = `walk-${Date.now()}`;
  const body = {
    code,
    name: "Walk",
    description: "A card of the contract walk",
    price_text: "990 ₽",
    page_url: "/p/walk",
    buttons: [{ label: "Buy", url: "/cart?sku=walk" }],
    ai_enabled: true,
    sort: 5,
  };
  const key = idem();
  const made = await request.post(api("/cards"), { headers: key, data: body });
  expect(made.status()).toBe(201);
  const again = await request.post(api("/cards"), { headers: key, data: body });
  expect((await again.json()).id).toBe((await made.json()).id);

  const patched = await request.patch(api(`/cards/${code}`), { headers: auth(), data: { badge: "New" } });
  expect((await patched.json()).badge).toBe("New");
  const keyed = await request.patch(api(`/cards/${code}`), { headers: idem(), data: { badge: null, sort: 6 } });
  expect(keyed.status()).toBe(200);

  const conversation = await first(request, "/conversations?limit=1&channel=api");
  const sent = await request.post(api(`/conversations/${String(conversation.id)}/cards`), {
    headers: idem(),
    data: { codes: [code], comment: "One idea for you" },
  });
  expect(sent.status()).toBe(201);

  expect((await request.delete(api(`/cards/${code}`), { headers: idem() })).status()).toBe(204);
});

test("webhooks: create, read, change without a key, rotate, test, deliveries, delete", async ({ request }) => {
  const made = await request.post(api("/webhooks"), {
    headers: idem(),
    data: {
      url: "https://localhost/contract-walk",
      events: ["message.created", "lead.*"],
      description: "contract walk",
    },
  });
  expect(made.status()).toBe(201);
  const hook = await made.json();
  expect(hook.secret).toMatch(/^whsec_/);
  await read(request, "/webhooks?limit=5");
  await read(request, `/webhooks/${hook.id}`);

  const paused = await request.patch(api(`/webhooks/${hook.id}`), {
    headers: auth(),
    data: { status: "paused", include_pii: false },
  });
  expect((await paused.json()).status).toBe("paused");
  const active = await request.patch(api(`/webhooks/${hook.id}`), {
    headers: idem(),
    data: { status: "active", description: null },
  });
  expect(active.status()).toBe(200);

  const rotated = await request.post(api(`/webhooks/${hook.id}/rotate-secret`), { headers: idem() });
  expect(rotated.status()).toBe(200);
  const tested = await request.post(api(`/webhooks/${hook.id}/test`), { headers: idem() });
  expect(tested.status()).toBe(202);
  await read(request, `/webhooks/${hook.id}/deliveries?limit=5`);
  await read(request, `/webhooks/${hook.id}/deliveries?state=pending`);

  expect((await request.delete(api(`/webhooks/${hook.id}`), { headers: auth() })).status()).toBe(204);
});

test("refusals are the app's own problem answers", async ({ request }) => {
  const code = async (r: Promise<import("@playwright/test").APIResponse>, status: number) => {
    const res = await r;
    expect(res.status()).toBe(status);
    return (await res.json()).code as string;
  };
  expect(
    await code(request.post(api("/cards"), { headers: auth(), data: { code: "nokey", name: "No key" } }), 400),
  ).toBe("idempotency_key_required");
  expect(await code(request.get(api("/cards?limit=0"), { headers: auth() }), 422)).toBe("validation_failed");
  expect(await code(request.get(api("/cards?limit=ten"), { headers: auth() }), 422)).toBe("validation_failed");
  expect(await code(request.get(api("/cards?colour=red"), { headers: auth() }), 422)).toBe("validation_failed");
  expect(await code(request.get(api("/cards")), 401)).toBe("invalid_api_key");
  expect(await code(request.get(api("/leads/not-a-uuid"), { headers: auth() }), 404)).toBe("not_found");
  expect(await code(request.put(api("/cards"), { headers: auth(), data: {} }), 405)).toBe("method_not_allowed");
  expect(
    await code(
      request.post(api("/cards"), {
        headers: { ...idem(), "content-type": "text/plain" },
        data: '{"code":"x","name":"y"}',
      }),
      400,
    ),
  ).toBe("bad_request");
  expect(await code(request.post(api("/cards"), { headers: idem(), data: { code: "Bad Code", name: "" } }), 422)).toBe(
    "validation_failed",
  );
});
