import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { webhookSubscriptions } from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "./delivery-client";
import { setHostResolver } from "./url-check";

// The SSRF corpus of issue 6 (spec "Endpoints: Webhooks", create rules): every form of a non-public
// address is refused when a subscription is created, and again at the connection of a delivery, where a
// name that resolved to a public address at creation may resolve elsewhere now (DNS rebinding).

/** Non-public addresses, as DNS could return them for a host name. */
const PRIVATE_ADDRESSES = [
  "127.0.0.1",
  "127.1.2.3",
  "::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "0.0.0.0",
  "::",
  "169.254.169.254",
  "fe80::1",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.254",
  "192.168.0.1",
  "192.168.255.255",
  "100.64.0.1",
  "100.127.255.254",
  "fc00::1",
  "fd12:3456::1",
  "::ffff:10.0.0.1",
  "::ffff:169.254.169.254",
  "224.0.0.1",
  "ff02::1",
  "255.255.255.255",
  "192.0.2.1",
  "2001:db8::1",
];

/** URLs whose host is itself a loopback or private address, in every spelling the corpus names. */
const LITERAL_URLS = [
  "https://localhost/hook",
  "https://127.1/hook",
  "https://0x7f000001/hook",
  "https://2130706433/hook",
  "https://017700000001/hook",
  "https://[::1]/hook",
  "https://[::ffff:127.0.0.1]/hook",
  "https://0.0.0.0/hook",
  "https://169.254.169.254/latest/meta-data",
  "https://10.0.0.1/hook",
  "https://172.16.0.1/hook",
  "https://192.168.1.1/hook",
  "https://100.64.0.1/hook",
  "https://[fc00::1]/hook",
  "https://[fd00::1]/hook",
];

const PUBLIC = "93.184.216.34";
const resolved = new Map<string, string[]>();
const hostFor = (address: string) => `h-${address.replace(/[:.]/g, "-") || "x"}.example.com`;

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let rx: HttpsReceiver;
let client: DeliveryClient;
let n = 0;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 2_000 });
  for (const a of PRIVATE_ADDRESSES) resolved.set(hostFor(a), [a]);
  resolved.set("localhost", ["127.0.0.1", "::1"]);
  resolved.set("public.example.com", [PUBLIC]);
  resolved.set("half.example.com", [PUBLIC, "10.1.2.3"]);
  setHostResolver(async (host) => {
    const a = resolved.get(host);
    if (!a) throw new Error("ENOTFOUND");
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  });
});
afterEach(() => setTestEnv({}));
afterAll(async () => {
  setHostResolver(undefined);
  await client.close();
  await rx.stop();
  await db.drop();
});

const create = (url: string) =>
  call("POST", "/webhooks", { key: t.key, json: { url, events: ["lead.*"] }, idempotencyKey: `ssrf-${++n}` });
const urlError = async (url: string) => {
  const r = await create(url);
  const body = r.body as { code: string; errors?: { field: string; code: string }[] };
  return { status: r.status, code: body.code, field: body.errors?.[0]?.field, fieldCode: body.errors?.[0]?.code };
};

describe("SSRF at creation", () => {
  it.each(LITERAL_URLS)("%s is refused with 422 on /url", async (url) => {
    const e = await urlError(url);
    expect(e).toMatchObject({ status: 422, code: "validation_failed", field: "/url" });
    // localhost is a name: it resolves to loopback; the others are IP literals in some spelling.
    expect(e.fieldCode).toBe(url.includes("localhost") ? "private_address" : "ip_not_allowed");
  });

  it.each(PRIVATE_ADDRESSES)("a name resolving to %s is refused as private_address", async (address) => {
    expect(await urlError(`https://${hostFor(address)}/hook`)).toMatchObject({
      status: 422,
      field: "/url",
      fieldCode: "private_address",
    });
  });

  it("a name with one private address among public ones is refused; nothing is stored", async () => {
    expect(await urlError("https://half.example.com/hook")).toMatchObject({
      status: 422,
      fieldCode: "private_address",
    });
    const rows = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.tenantId, t.tenantId));
    expect(rows).toHaveLength(0);
  });

  it("WEBHOOK_ALLOW_PRIVATE_CIDRS admits the operator's networks and nothing else", async () => {
    setTestEnv({ WEBHOOK_ALLOW_PRIVATE_CIDRS: "10.0.0.0/8, fd12:3456::/32" });
    expect((await create(`https://${hostFor("10.0.0.1")}/hook`)).status).toBe(201);
    expect((await create(`https://${hostFor("fd12:3456::1")}/hook`)).status).toBe(201);
    expect(await urlError(`https://${hostFor("192.168.0.1")}/hook`)).toMatchObject({
      status: 422,
      fieldCode: "private_address",
    });
    expect(await urlError(`https://${hostFor("127.0.0.1")}/hook`)).toMatchObject({
      status: 422,
      fieldCode: "private_address",
    });
    // Still a contract rule: a host name, not an IP literal, even inside an allowed network.
    expect(await urlError("https://10.0.0.1/hook")).toMatchObject({ status: 422, fieldCode: "ip_not_allowed" });
  });
});

describe("SSRF at connection", () => {
  it.each(PRIVATE_ADDRESSES)("a name now resolving to %s is not connected to", async (address) => {
    const r = await client.post(`https://${hostFor(address)}/hook`, "{}", { "content-type": "application/json" });
    expect(r).toMatchObject({ ok: false, statusCode: null, error: "private_address" });
  });

  it("DNS rebinding: public at creation, loopback at delivery → refused, the receiver gets nothing", async () => {
    resolved.set("rebind.example.com", [PUBLIC]);
    expect((await create("https://rebind.example.com/hook")).status).toBe(201);
    resolved.set("rebind.example.com", ["127.0.0.1"]);
    rx.requests.length = 0;
    const r = await client.post("https://rebind.example.com/hook", "{}", { "content-type": "application/json" });
    expect(r.error).toBe("private_address");
    expect(rx.requests).toHaveLength(0);
  });

  it("DNS rebinding between the delivery's own check and its connection is caught by the connection's lookup", async () => {
    // The first answer (the URL check) is public; the next (the socket's lookup) is loopback.
    let calls = 0;
    setHostResolver(async () => [{ address: ++calls === 1 ? PUBLIC : "127.0.0.1", family: 4 }]);
    try {
      rx.requests.length = 0;
      const r = await client.post("https://flip.example.com/hook", "{}", { "content-type": "application/json" });
      expect(calls).toBe(2);
      expect(r).toMatchObject({ ok: false, statusCode: null, error: "private_address" });
      expect(rx.requests).toHaveLength(0);
    } finally {
      setHostResolver(async (host) => {
        const a = resolved.get(host);
        if (!a) throw new Error("ENOTFOUND");
        return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      });
    }
  });

  it.each([
    "https://127.0.0.1",
    "https://[::1]",
    "https://127.1",
    "https://2130706433",
    "https://0x7f000001",
    "https://[::ffff:127.0.0.1]",
    "https://localhost",
  ])(
    "%s on the receiver's port is refused at connection, even under the test setting that admits its port",
    async (origin) => {
      setTestEnv({ WEBHOOK_ALLOW_LOOPBACK: "true" });
      rx.requests.length = 0;
      const r = await client.post(`${origin}:${rx.port}/hook`, "{}", {});
      expect(r.error).toBe("private_address");
      expect(rx.requests).toHaveLength(0);
    },
  );

  it("with loopback in WEBHOOK_ALLOW_PRIVATE_CIDRS the connection is made", async () => {
    // localhost resolves to both loopback addresses: both networks must be allowed.
    setTestEnv({ WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_PRIVATE_CIDRS: "127.0.0.0/8" });
    expect((await client.post(`https://localhost:${rx.port}/hook`, "{}", {})).error).toBe("private_address");
    setTestEnv({ ...LOOPBACK_RECEIVER_ENV });
    rx.requests.length = 0;
    const r = await client.post(`https://localhost:${rx.port}/hook`, "{}", { "content-type": "application/json" });
    expect(r).toMatchObject({ ok: true, statusCode: 200 });
    expect(rx.requests).toHaveLength(1);
  });
});
