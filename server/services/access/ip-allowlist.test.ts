import { describe, expect, it } from "vitest";
import { isAllowed, isNarrowAllowlist, normalizeEntry, parseAllowlistEntry, validateAllowlist } from "./ip-allowlist";

// IP allowlists of keys and integrations (spec "Authentication" 2 and 7): addresses and CIDR networks,
// IPv4 and IPv6; a caller outside answers 403 ip_not_allowed.

describe("isAllowed", () => {
  it.each([
    ["203.0.113.7", ["203.0.113.7"], true],
    ["203.0.113.8", ["203.0.113.7"], false],
    ["203.0.113.200", ["203.0.113.0/24"], true],
    ["203.0.114.1", ["203.0.113.0/24"], false],
    ["10.200.3.4", ["10.0.0.7/8"], true], // a host address with bits reads as its network
    ["11.0.0.1", ["10.0.0.0/8"], false],
    ["192.0.2.1", ["0.0.0.0/0"], true],
    ["198.51.100.1", ["203.0.113.7", "198.51.100.0/30"], true],
    ["198.51.100.4", ["203.0.113.7", "198.51.100.0/30"], false],
    ["2001:db8::1", ["2001:db8::1"], true],
    ["2001:0db8:0000::0001", ["2001:db8::1"], true],
    ["2001:db8::2", ["2001:db8::1"], false],
    ["2001:db8:0:ff::1", ["2001:db8::/56"], true],
    ["2001:db8:0:100::1", ["2001:db8::/56"], false],
    ["[2001:db8::1]", ["2001:db8::1"], true],
    ["fe80::1%eth0", ["fe80::/64"], true],
  ])("%s in %j → %s", (ip, list, expected) => {
    expect(isAllowed(ip, list)).toBe(expected);
  });

  it("matches IPv4-mapped IPv6 callers against IPv4 entries", () => {
    expect(isAllowed("::ffff:203.0.113.7", ["203.0.113.7"])).toBe(true);
    expect(isAllowed("::ffff:203.0.113.9", ["203.0.113.0/24"])).toBe(true);
    expect(isAllowed("::ffff:203.0.114.9", ["203.0.113.0/24"])).toBe(false);
  });

  it("matches IPv4 callers against IPv4-mapped IPv6 entries, /120 = IPv4 /24", () => {
    expect(isAllowed("203.0.113.7", ["::ffff:203.0.113.7"])).toBe(true);
    expect(isAllowed("203.0.113.99", ["::ffff:203.0.113.0/120"])).toBe(true);
    expect(isAllowed("203.0.114.99", ["::ffff:203.0.113.0/120"])).toBe(false);
  });

  it("never mixes families otherwise", () => {
    expect(isAllowed("203.0.113.7", ["::/0"])).toBe(false);
    expect(isAllowed("2001:db8::1", ["0.0.0.0/0"])).toBe(false);
  });

  it("refuses an unknown or unparseable caller, and ignores bad entries", () => {
    expect(isAllowed(null, ["0.0.0.0/0"])).toBe(false);
    expect(isAllowed("", ["0.0.0.0/0"])).toBe(false);
    expect(isAllowed("not-an-ip", ["0.0.0.0/0"])).toBe(false);
    expect(isAllowed("203.0.113.7", ["garbage", "203.0.113.7/99"])).toBe(false);
    expect(isAllowed("203.0.113.7", [])).toBe(false);
  });
});

describe("validateAllowlist", () => {
  it("normalises good entries and reports bad ones by index", () => {
    expect(
      validateAllowlist([
        " 203.0.113.7 ",
        "10.0.0.7/8",
        "2001:DB8:0::1",
        "2001:db8::/56",
        "::ffff:1.2.3.4",
        "127.1",
        "0x7f000001",
        "300.1.1.1",
        "1.2.3.4/33",
        "host.example",
        "",
      ]),
    ).toEqual({
      ok: ["203.0.113.7", "10.0.0.0/8", "2001:db8::1", "2001:db8::/56", "::ffff:102:304"],
      bad: [
        { index: 5, value: "127.1" },
        { index: 6, value: "0x7f000001" },
        { index: 7, value: "300.1.1.1" },
        { index: 8, value: "1.2.3.4/33" },
        { index: 9, value: "host.example" },
        { index: 10, value: "" },
      ],
    });
  });
});

describe("parseAllowlistEntry and normalizeEntry", () => {
  it("gives the prefix length of addresses and networks", () => {
    expect(parseAllowlistEntry("203.0.113.7")?.[1]).toBe(32);
    expect(parseAllowlistEntry("2001:db8::1")?.[1]).toBe(128);
    expect(parseAllowlistEntry("203.0.113.0/24")?.[1]).toBe(24);
    expect(parseAllowlistEntry("nope")).toBeNull();
  });

  it("writes a full-length network as a plain address", () => {
    expect(normalizeEntry("203.0.113.7/32")).toBe("203.0.113.7");
    expect(normalizeEntry("2001:db8::1/128")).toBe("2001:db8::1");
    expect(normalizeEntry("x")).toBeNull();
  });
});

describe("isNarrowAllowlist (RU personal-data rule)", () => {
  it.each([
    [["203.0.113.7"], true],
    [["203.0.113.0/24", "2001:db8::/56", "2001:db8::1"], true],
    [["203.0.113.0/23"], false],
    [["2001:db8::/55"], false],
    [["203.0.113.7", "0.0.0.0/0"], false],
    [["garbage"], false],
    [[], false],
    [null, false],
  ])("%j → %s", (list, expected) => {
    expect(isNarrowAllowlist(list)).toBe(expected);
  });
});
