import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// Local fakes of the YooKassa and Stripe APIs on 127.0.0.1 (no network in tests): they keep the
// payments they made, let a test decide each one's fate, and can stop answering (timeouts).

/** A fake payment at a fake provider; amounts in minor units. */
export interface FakePayment {
  id: string;
  status: "pending" | "succeeded" | "canceled";
  amountMinor: number;
  currency: string;
  metadata: Record<string, string>;
  returnUrl: string;
}

/** What every fake offers a test. */
export interface FakeApi {
  url: string;
  payments: Map<string, FakePayment>;
  /** Requests received: method, path, headers, body. */
  requests: { method: string; path: string; headers: IncomingMessage["headers"]; body: string }[];
  /** true: requests are held unanswered (the client times out). */
  hang: boolean;
  close(): Promise<void>;
}

async function serve(
  handle: (method: string, path: string, body: string, req: IncomingMessage) => { status: number; body: unknown },
): Promise<FakeApi> {
  const api: FakeApi = {
    url: "",
    payments: new Map(),
    requests: [],
    hang: false,
    close: () => Promise.resolve(),
  };
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      api.requests.push({ method: req.method ?? "", path, headers: req.headers, body });
      if (api.hang) {
        held.push(res);
        return;
      }
      const out = handle(req.method ?? "", path, body, req);
      res.writeHead(out.status, { "content-type": "application/json" });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise<void>((r) => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close(() => r());
    });
  return api;
}

/** Fake YooKassa API v3: POST /v3/payments and GET /v3/payments/{id}, Basic auth `shop:secret`. */
export async function startFakeYooKassa(shopId: string, secretKey: string): Promise<FakeApi> {
  const expected = `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString("base64")}`;
  let n = 0;
  const view = (p: FakePayment) => ({
    id: p.id,
    status: p.status,
    paid: p.status === "succeeded",
    amount: { value: (p.amountMinor / 100).toFixed(2), currency: p.currency },
    confirmation: { type: "redirect", confirmation_url: `https://yoomoney.example/checkout?orderId=${p.id}` },
    metadata: p.metadata,
  });
  const byKey = new Map<string, string>();
  const api = await serve((method, path, body, req) => {
    if (req.headers.authorization !== expected)
      return { status: 401, body: { type: "error", code: "invalid_credentials" } };
    if (method === "POST" && path === "/v3/payments") {
      const key = String(req.headers["idempotence-key"] ?? "");
      if (!key) return { status: 400, body: { type: "error", code: "invalid_request" } };
      const again = byKey.get(key);
      if (again) return { status: 200, body: view(api.payments.get(again)!) };
      const b = JSON.parse(body) as {
        amount: { value: string; currency: string };
        confirmation: { type: string; return_url: string };
        capture: boolean;
        metadata: Record<string, string>;
      };
      if (b.confirmation?.type !== "redirect" || b.capture !== true)
        return { status: 400, body: { type: "error", code: "invalid_request" } };
      const id = `2f${String(++n).padStart(6, "0")}-000f-5000-9000-1b68e7b15f3f`;
      const p: FakePayment = {
        id,
        status: "pending",
        amountMinor: Math.round(Number(b.amount.value) * 100),
        currency: b.amount.currency,
        metadata: b.metadata ?? {},
        returnUrl: b.confirmation.return_url,
      };
      api.payments.set(id, p);
      byKey.set(key, id);
      return { status: 200, body: view(p) };
    }
    const m = /^\/v3\/payments\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const p = api.payments.get(decodeURIComponent(m[1]));
      return p ? { status: 200, body: view(p) } : { status: 404, body: { type: "error", code: "not_found" } };
    }
    return { status: 404, body: { type: "error", code: "not_found" } };
  });
  return api;
}

/** Fake Stripe API: POST /v1/checkout/sessions (form-encoded) and GET /v1/checkout/sessions/{id}. */
export async function startFakeStripe(secretKey: string): Promise<FakeApi> {
  let n = 0;
  const byKey = new Map<string, string>();
  const api = await serve((method, path, body, req) => {
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return { status: 401, body: { error: { type: "invalid_request_error", message: "Invalid API Key" } } };
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const key = String(req.headers["idempotency-key"] ?? "");
      const again = key ? byKey.get(key) : undefined;
      if (again) return { status: 200, body: stripeSession(api.payments.get(again)!) };
      const f = new URLSearchParams(body);
      const metadata: Record<string, string> = {};
      for (const [k, v] of f) {
        const m = /^metadata\[(\w+)\]$/.exec(k);
        if (m) metadata[m[1]] = v;
      }
      if (f.get("mode") !== "payment") return { status: 400, body: { error: { type: "invalid_request_error" } } };
      const id = `cs_test_${String(++n).padStart(8, "0")}`;
      const p: FakePayment = {
        id,
        status: "pending",
        amountMinor: Number(f.get("line_items[0][price_data][unit_amount]")),
        currency: f.get("line_items[0][price_data][currency]") ?? "",
        metadata,
        returnUrl: f.get("success_url") ?? "",
      };
      api.payments.set(id, p);
      if (key) byKey.set(key, id);
      return { status: 200, body: stripeSession(p) };
    }
    const m = /^\/v1\/checkout\/sessions\/([^/?]+)/.exec(path);
    if (method === "GET" && m) {
      const p = api.payments.get(decodeURIComponent(m[1]));
      return p
        ? { status: 200, body: stripeSession(p) }
        : { status: 404, body: { error: { type: "invalid_request_error", message: "No such checkout.session" } } };
    }
    return { status: 404, body: { error: { type: "invalid_request_error" } } };
  });
  return api;
}

/** A fake payment as a Stripe Checkout Session object. */
export function stripeSession(p: FakePayment) {
  return {
    id: p.id,
    object: "checkout.session",
    mode: "payment",
    url: `https://checkout.stripe.example/c/pay/${p.id}`,
    status: p.status === "pending" ? "open" : p.status === "succeeded" ? "complete" : "expired",
    payment_status: p.status === "succeeded" ? "paid" : "unpaid",
    amount_total: p.amountMinor,
    currency: p.currency,
    client_reference_id: p.metadata.payment_id ?? null,
    metadata: p.metadata,
    success_url: p.returnUrl,
  };
}
