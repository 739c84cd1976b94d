import { webcrypto } from "node:crypto";
import vm from "node:vm";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { GET } from "@/app/intake.js/route";
import { INTAKE_SCRIPT, INTAKE_SCRIPT_ETAG } from "./intake-snippet";

// The site snippet (issue 74 item 6; docs/event-intake.md "The snippet"): run as a browser would, in a
// node:vm context with a fake window, document, navigator, localStorage and history that records beacons.

interface Beacon {
  url: string;
  body: Record<string, unknown>;
}
interface SentEvent {
  event_id: string;
  type: string;
  occurred_at: string;
  page: { url: string; title: string; referrer: string };
  utm?: Record<string, string>;
  properties: Record<string, unknown>;
  [k: string]: unknown;
}

/** A browser's storage for one site, kept across page loads. */
function fakeStorage(): {
  getItem(k: string): string | null;
  setItem(k: string, v: string): void;
  data: Map<string, string>;
} {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, String(v)) };
}

/**
 * Loads the snippet on a page at `url` (a fresh window: one page load) and returns what it sent.
 * `beacon: false` takes sendBeacon away (the fetch keepalive path); `gpc` sets navigator.globalPrivacyControl.
 */
function loadPage(
  url: string,
  opts: {
    storage?: ReturnType<typeof fakeStorage> | "refuse";
    referrer?: string;
    relay?: string | null;
    gpc?: boolean;
    beacon?: boolean;
    randomUUID?: boolean;
    title?: string;
  } = {},
) {
  const sent: Beacon[] = [];
  const fetches: { url: string; init: Record<string, unknown> }[] = [];
  const listeners: Record<string, (() => void)[]> = {};
  const location = new URL(url);
  const record = (target: string, body: unknown) => {
    expect(typeof body).toBe("string"); // text/plain: no CORS preflight for a relay on another origin
    sent.push({ url: target, body: JSON.parse(body as string) as Record<string, unknown> });
  };
  const history = {
    pushState(_state: unknown, _title: string, next: string) {
      location.href = new URL(next, location.href).href;
    },
  };
  const storage = opts.storage ?? fakeStorage();
  const win: Record<string, unknown> = {
    location,
    history,
    navigator: {
      ...(opts.beacon === false ? {} : { sendBeacon: (u: string, b: unknown) => (record(u, b), true) }),
      ...(opts.gpc ? { globalPrivacyControl: true } : {}),
    },
    localStorage:
      storage === "refuse"
        ? new Proxy(
            {},
            {
              get: () => {
                throw new Error("SecurityError");
              },
            },
          )
        : storage,
    crypto: opts.randomUUID === false ? { getRandomValues: webcrypto.getRandomValues.bind(webcrypto) } : webcrypto,
    fetch: (u: string, init: Record<string, unknown>) => {
      fetches.push({ url: u, init });
      record(u, init.body);
      return Promise.resolve({ ok: true });
    },
    URLSearchParams,
    addEventListener: (type: string, fn: () => void) => (listeners[type] ??= []).push(fn),
  };
  win.window = win;
  win.document = {
    title: opts.title ?? "Trail shoes",
    referrer: opts.referrer ?? "",
    readyState: "complete",
    currentScript: {
      getAttribute: (name: string) => (name === "data-relay" && opts.relay !== null ? (opts.relay ?? null) : null),
    },
    addEventListener: () => undefined,
  };
  const context = vm.createContext(win);
  vm.runInContext(INTAKE_SCRIPT, context, { filename: "intake.js" });
  const events = () => sent.map((b) => (b.body.events as SentEvent[])[0]!);
  return {
    sent,
    fetches,
    events,
    storage,
    navigate: (next: string) => (context.history as typeof history).pushState({}, "", next),
    back: (to: string) => {
      location.href = new URL(to, location.href).href;
      for (const fn of listeners.popstate ?? []) fn();
    },
    intake: context.intake as { track(type: string, fields?: Record<string, unknown>): boolean },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("/intake.js, the site snippet", () => {
  it("is served as JavaScript under 3 KB gzipped, cached with an ETag, and 304 on a match", async () => {
    expect(gzipSync(INTAKE_SCRIPT).length).toBeLessThan(3072);
    const res = GET(new Request("https://app.example.ru/intake.js"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(res.headers.get("etag")).toBe(INTAKE_SCRIPT_ETAG);
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(await res.text()).toBe(INTAKE_SCRIPT);
    const again = GET(
      new Request("https://app.example.ru/intake.js", { headers: { "if-none-match": `W/"x", ${INTAKE_SCRIPT_ETAG}` } }),
    );
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(GET(new Request("https://a.ru/intake.js", { headers: { "if-none-match": '"old"' } })).status).toBe(200);
  });

  it("sends a page view on load to the relay, with utm parsed and a stable anonymous visitor id", () => {
    const storage = fakeStorage();
    const first = loadPage(
      "https://shop.example.com/shoes?utm_source=newsletter&utm_medium=email&utm_campaign=spring&x=1",
      {
        storage,
        referrer: "https://www.google.com/",
      },
    );
    expect(first.sent.map((b) => b.url)).toEqual(["/analytics/relay"]); // the default relay, same origin
    const [view] = first.events();
    expect(view).toEqual({
      event_id: expect.stringMatching(UUID),
      type: "page_view",
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      page: {
        url: "https://shop.example.com/shoes?utm_source=newsletter&utm_medium=email&utm_campaign=spring&x=1",
        title: "Trail shoes",
        referrer: "https://www.google.com/",
      },
      utm: { source: "newsletter", medium: "email", campaign: "spring" },
      properties: { visitor_id: expect.stringMatching(UUID) },
    });
    expect(Math.abs(Date.parse(view!.occurred_at) - Date.now())).toBeLessThan(5000);
    expect(first.sent[0]!.body).toEqual({ events: [view] }); // the envelope of POST /intake/events, one event

    // The next page load of the same browser: same visitor, new event id, no utm on a plain address.
    const second = loadPage("https://shop.example.com/cart", { storage, relay: "https://api.shop.example.com/relay" });
    const [next] = second.events();
    expect(second.sent[0]!.url).toBe("https://api.shop.example.com/relay");
    expect(next!.properties.visitor_id).toBe(view!.properties.visitor_id);
    expect(next!.event_id).not.toBe(view!.event_id);
    expect(next).not.toHaveProperty("utm");
    expect([...storage.data.values()]).toEqual([view!.properties.visitor_id]); // one key, no cookie

    // Storage refused (private mode): an id for the page's life; crypto without randomUUID (http): still uuids.
    const refused = loadPage("https://shop.example.com/", { storage: "refuse", randomUUID: false });
    refused.intake.track("custom:scroll");
    const [a, b] = refused.events();
    expect(a!.properties.visitor_id).toMatch(UUID);
    expect(b!.properties.visitor_id).toBe(a!.properties.visitor_id);
    expect(a!.event_id).toMatch(UUID);
    expect(b!.event_id).not.toBe(a!.event_id);
  });

  it("sends a page view on pushState and popstate, referred by the previous address", () => {
    const page = loadPage("https://shop.example.com/", { referrer: "https://chatgpt.com/" });
    page.navigate("/shoes/42");
    page.navigate("/shoes/42"); // same address: nothing new
    page.back("/");
    expect(page.events().map((e) => [e.type, e.page.url, e.page.referrer])).toEqual([
      ["page_view", "https://shop.example.com/", "https://chatgpt.com/"],
      ["page_view", "https://shop.example.com/shoes/42", "https://shop.example.com/"],
      ["page_view", "https://shop.example.com/", "https://shop.example.com/shoes/42"],
    ]);
    expect(new Set(page.events().map((e) => e.properties.visitor_id)).size).toBe(1);

    // Texts are cut to intake's limits, so the event is not rejected for a long title or address.
    const long = loadPage(`https://shop.example.com/?q=${"x".repeat(3000)}&utm_source=${"s".repeat(300)}`, {
      referrer: `https://www.google.com/?q=${"y".repeat(3000)}`,
      title: "T".repeat(600),
    });
    const [cut] = long.events();
    expect([cut!.page.url.length, cut!.page.referrer.length, cut!.page.title.length, cut!.utm!.source!.length]).toEqual(
      [2000, 2000, 500, 200],
    );
  });

  it("track() sends other events with their fields; fetch keepalive without sendBeacon", () => {
    const page = loadPage("https://shop.example.com/contact", { beacon: false });
    const ok = page.intake.track("form_submit", {
      contact: { email: "olga@example.com" },
      event_id: "form-7",
      type: "purchase", // the first argument wins
      properties: { form: "quote", visitor_id: "forged" },
    });
    expect(ok).toBe(true);
    const [, form] = page.events();
    expect(form).toMatchObject({
      event_id: "form-7",
      type: "form_submit",
      contact: { email: "olga@example.com" },
      page: { url: "https://shop.example.com/contact", title: "Trail shoes" },
      properties: { form: "quote", visitor_id: page.events()[0]!.properties.visitor_id },
    });
    expect(page.fetches.map((f) => [f.url, f.init.method, f.init.keepalive])).toEqual([
      ["/analytics/relay", "POST", true],
      ["/analytics/relay", "POST", true],
    ]);
  });

  it("sends nothing and stores nothing under Global Privacy Control; holds no key or Authorization", () => {
    const storage = fakeStorage();
    const page = loadPage("https://shop.example.com/?utm_source=x", { gpc: true, storage });
    expect(page.intake.track("signup")).toBe(false);
    expect(page.sent).toEqual([]);
    expect(storage.data.size).toBe(0);

    const normal = loadPage("https://shop.example.com/", { beacon: false });
    const wire = JSON.stringify(normal.fetches);
    for (const text of [INTAKE_SCRIPT, wire]) expect(text).not.toMatch(/authorization|bearer|api[_-]?key|\.cookie/i);
    expect(normal.fetches[0]!.init.headers).toEqual({ "Content-Type": "text/plain;charset=UTF-8" });
  });
});
