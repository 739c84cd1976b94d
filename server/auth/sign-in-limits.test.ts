import { afterAll, describe, expect, it } from "vitest";
import { setTestEnv } from "@/server/testing/test-db";
import { addressKey } from "@/server/lib/client-ip";
import { accountKey } from "./sign-in-limits";

// Bucket keys of the console sign-in limits: one host must not get fresh buckets by changing how its
// address or email is written, and the limit store never holds an email in clear.

afterAll(() => setTestEnv());

describe("addressKey", () => {
  it("keeps IPv4, and reads an IPv4-mapped IPv6 peer as the IPv4 address", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("puts every address of one IPv6 /64 in one bucket, and other /64s in others", () => {
    const k = addressKey("2001:db8:1:2::1");
    expect(k).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(k);
    expect(addressKey("2001:DB8:1:2:0:0:0:9")).toBe(k);
    expect(addressKey("2001:db8:1:3::1")).not.toBe(k);
  });

  it("keeps an unparsable value as sent, bounded", () => {
    expect(addressKey("Not-An-Address")).toBe("not-an-address");
    expect(addressKey("x".repeat(500))).toHaveLength(64);
  });
});

describe("accountKey", () => {
  it("is one key per email whatever its case or surrounding spaces, and never the email itself", () => {
    setTestEnv();
    const k = accountKey("Owner@Example.com");
    expect(accountKey(" owner@example.com ")).toBe(k);
    expect(accountKey("other@example.com")).not.toBe(k);
    expect(k).toMatch(/^[0-9a-f]{32}$/);
  });

  it("depends on the app secret, so a guessed email cannot be checked against the store offline", () => {
    setTestEnv();
    const k = accountKey("owner@example.com");
    setTestEnv({ APP_SECRET: "another-secret-0123456789abcdef0123456789" });
    expect(accountKey("owner@example.com")).not.toBe(k);
  });
});
