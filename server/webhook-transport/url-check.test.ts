import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "@/server/errors";
import { setTestEnv } from "@/server/testing/test-db";
import { checkWebhookUrl, setHostResolver } from "./url-check";

/** Test host names and the addresses our resolver gives them. */
const HOSTS: Record<string, string[]> = {
  "public.test": ["93.184.216.34"],
  "public6.test": ["2606:2800:220:1:248:1893:25c8:1946"],
  "private.test": ["10.0.0.1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "linklocal.test": ["fe80::1"],
  "cgnat.test": ["100.64.0.1"],
  "multicast.test": ["224.0.0.1"],
  "zero.test": ["0.0.0.0"],
  "loop.test": ["127.0.0.1"],
  "mixed.test": ["93.184.216.34", "192.168.1.10"],
  "mixed6.test": ["93.184.216.34", "fd00::1"],
  "empty.test": [],
  localhost: ["127.0.0.1", "::1"],
};

beforeEach(() => {
  setTestEnv();
  setHostResolver(async (host) => {
    const a = HOSTS[host];
    if (!a) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  });
});
afterAll(() => setHostResolver(undefined));

/** The `/url` field code of the refusal, or "ok". */
async function verdict(url: string): Promise<string> {
  try {
    await checkWebhookUrl(url);
    return "ok";
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.code).toBe("validation_failed");
    expect(e.extras.errors).toHaveLength(1);
    expect(e.extras.errors![0].field).toBe("/url");
    return e.extras.errors![0].code;
  }
}

describe("checkWebhookUrl", () => {
  it.each([
    ["https://public.test/hooks", "ok"],
    ["https://public.test:443/hooks?x=1", "ok"],
    ["https://public6.test/", "ok"],
    ["not a url", "invalid_url"],
    ["/relative", "invalid_url"],
    ["http://public.test/hooks", "https_only"],
    ["ftp://public.test/", "https_only"],
    ["javascript:alert(1)", "https_only"],
    ["https://user:pw@public.test/", "userinfo_not_allowed"],
    ["https://user@public.test/", "userinfo_not_allowed"],
    ["https://public.test:8443/", "port_not_allowed"],
    ["https://public.test:80/", "port_not_allowed"],
    ["https://93.184.216.34/", "ip_not_allowed"],
    ["https://[2606:2800:220:1:248:1893:25c8:1946]/", "ip_not_allowed"],
    ["https://127.0.0.1/", "ip_not_allowed"],
    ["https://0x7f000001/", "ip_not_allowed"],
    ["https://2130706433/", "ip_not_allowed"],
    ["https://127.0.0.1:8443/", "ip_not_allowed"],
    ["https://nosuch.test/", "unresolvable_host"],
    ["https://empty.test/", "unresolvable_host"],
    ["https://private.test/", "private_address"],
    ["https://mapped.test/", "private_address"],
    ["https://linklocal.test/", "private_address"],
    ["https://cgnat.test/", "private_address"],
    ["https://multicast.test/", "private_address"],
    ["https://zero.test/", "private_address"],
    ["https://loop.test/", "private_address"],
    ["https://localhost/", "private_address"],
    ["https://mixed.test/", "private_address"],
    ["https://mixed6.test/", "private_address"],
  ])("%s → %s", async (url, expected) => {
    expect(await verdict(url)).toBe(expected);
  });

  it("calls a host unresolvable when DNS does not answer in time", async () => {
    setHostResolver(() => new Promise(() => {}));
    const started = Date.now();
    expect(await verdict("https://slow.test/")).toBe("unresolvable_host");
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
  }, 10_000);

  describe("under the test setting WEBHOOK_ALLOW_LOOPBACK with loopback in WEBHOOK_ALLOW_PRIVATE_CIDRS", () => {
    beforeEach(() =>
      setTestEnv({ WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_PRIVATE_CIDRS: "127.0.0.0/8,::1/128" }),
    );
    it.each([
      ["https://127.0.0.1:8443/hook", "ok"],
      ["https://[::1]:9000/hook", "ok"],
      ["https://localhost:9000/hook", "ok"],
      ["https://localhost/hook", "ok"],
      ["http://127.0.0.1:8443/hook", "https_only"],
      ["https://10.0.0.1:8443/hook", "ip_not_allowed"],
      ["https://93.184.216.34/", "ip_not_allowed"],
      ["https://public.test:8443/", "port_not_allowed"],
      ["https://private.test/", "private_address"],
      ["https://loop.test/", "ok"],
    ])("%s → %s", async (url, expected) => {
      expect(await verdict(url)).toBe(expected);
    });

    it("without loopback in WEBHOOK_ALLOW_PRIVATE_CIDRS a loopback receiver is still private_address", async () => {
      setTestEnv({ WEBHOOK_ALLOW_LOOPBACK: "true" });
      expect(await verdict("https://localhost:9000/hook")).toBe("private_address");
      expect(await verdict("https://127.0.0.1:9000/hook")).toBe("private_address");
    });
  });

  describe("WEBHOOK_ALLOW_PRIVATE_CIDRS (operator setting)", () => {
    beforeEach(() => setTestEnv({ WEBHOOK_ALLOW_PRIVATE_CIDRS: "10.0.0.0/8,fd00::/8" }));
    it.each([
      ["https://private.test/", "ok"],
      ["https://mixed6.test/", "ok"],
      ["https://mixed.test/", "private_address"],
      ["https://cgnat.test/", "private_address"],
      ["https://loop.test/", "private_address"],
      ["https://10.0.0.1/", "ip_not_allowed"],
      ["https://private.test:8443/", "port_not_allowed"],
    ])("%s → %s", async (url, expected) => {
      expect(await verdict(url)).toBe(expected);
    });
  });
});
