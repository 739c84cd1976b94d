import { describe, expect, it } from "vitest";
import { formatMinor, money, parseAmount } from "./money";

// Money (spec "Money"): decimal strings on the wire, integer minor units (bigint) inside; never floats.

describe("formatMinor", () => {
  it.each([
    [0n, "0.00"],
    [5n, "0.05"],
    [50n, "0.50"],
    [100n, "1.00"],
    [1234n, "12.34"],
    [-5n, "-0.05"],
    [-100n, "-1.00"],
    [-123456n, "-1234.56"],
    [900719925474099312n, "9007199254740993.12"], // beyond Number precision, exact
  ])("%s → %s", (minor, text) => {
    expect(formatMinor(minor)).toBe(text);
  });
});

describe("money", () => {
  it("wraps minor units with the currency, RUB by default", () => {
    expect(money(1234n)).toEqual({ amount: "12.34", currency: "RUB" });
    expect(money(-1n, "GBP")).toEqual({ amount: "-0.01", currency: "GBP" });
  });
});

describe("parseAmount", () => {
  it.each([
    ["12.34", 1234n],
    ["5", 500n],
    ["5.5", 550n],
    ["0.01", 1n],
    ["0", 0n],
    [" 7.10 ", 710n],
    ["999999999999999.99", 99999999999999999n],
  ])("%j → %s", (text, minor) => {
    expect(parseAmount(text)).toBe(minor);
  });

  it("is exact where floats are not", () => {
    expect(parseAmount("0.29")).toBe(29n); // 0.29 * 100 = 28.999999999999996 as a float
    expect(parseAmount("1.15")).toBe(115n);
    expect(formatMinor(parseAmount("4.35"))).toBe("4.35");
  });

  it.each(["", "-1", "-0.05", "1.234", "1,5", ".5", "5.", "1e3", "abc", "12.3.4", "+5", "0x10", "1000000000000000"])(
    "refuses %j with a RangeError",
    (text) => {
      expect(() => parseAmount(text)).toThrow(RangeError);
    },
  );
});
