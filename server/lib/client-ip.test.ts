import { afterAll, describe, expect, it } from "vitest";
import { setTestEnv } from "@/server/testing/test-db";
import { callerIp, PEER_HEADER } from "./client-ip";

// The caller's address for IP allowlists (spec "Authentication" 2) under the TRUST_PROXY setting: a
// client must never choose the address an allowlist sees.

const headers = (h: Record<string, string>) => new Headers(h);
afterAll(() => setTestEnv());

describe("callerIp with TRUST_PROXY=none (default)", () => {
  it("is the TCP peer stamped by our server and ignores X-Forwarded-For", () => {
    setTestEnv();
    expect(callerIp(headers({ [PEER_HEADER]: "203.0.113.7", "x-forwarded-for": "127.0.0.1" }))).toBe("203.0.113.7");
    expect(callerIp(headers({ [PEER_HEADER]: "2001:db8::1" }))).toBe("2001:db8::1");
  });

  it("is unknown (null) without the peer header, even when X-Forwarded-For is sent", () => {
    setTestEnv({ TRUST_PROXY: "none" });
    expect(callerIp(headers({ "x-forwarded-for": "127.0.0.1" }))).toBeNull();
    expect(callerIp(headers({}))).toBeNull();
  });
});

describe("callerIp with TRUST_PROXY=N", () => {
  it("with one proxy takes the rightmost X-Forwarded-For entry, which that proxy appended", () => {
    setTestEnv({ TRUST_PROXY: "1" });
    expect(
      callerIp(headers({ "x-forwarded-for": "127.0.0.1, 198.51.100.9, 203.0.113.7", [PEER_HEADER]: "10.0.0.2" })),
    ).toBe("203.0.113.7");
    expect(callerIp(headers({ "x-forwarded-for": "203.0.113.7" }))).toBe("203.0.113.7");
  });

  it("with two proxies takes the second entry from the right; entries further left are the client's and ignored", () => {
    setTestEnv({ TRUST_PROXY: "2" });
    expect(callerIp(headers({ "x-forwarded-for": "127.0.0.1,203.0.113.7 ,10.0.0.5" }))).toBe("203.0.113.7");
    expect(callerIp(headers({ "x-forwarded-for": "2001:db8::7, 10.0.0.5" }))).toBe("2001:db8::7");
  });

  it("is unknown when the chain is shorter than the trusted proxies or absent; the peer is not used", () => {
    setTestEnv({ TRUST_PROXY: "2" });
    expect(callerIp(headers({ "x-forwarded-for": "203.0.113.7", [PEER_HEADER]: "203.0.113.7" }))).toBeNull();
    expect(callerIp(headers({ [PEER_HEADER]: "203.0.113.7" }))).toBeNull();
    expect(callerIp(headers({ "x-forwarded-for": " , ," }))).toBeNull();
  });

  it("skips empty entries", () => {
    setTestEnv({ TRUST_PROXY: "1" });
    expect(callerIp(headers({ "x-forwarded-for": "203.0.113.7, ," }))).toBe("203.0.113.7");
  });
});
