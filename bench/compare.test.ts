import { describe, expect, it } from "vitest";
import { compareEnv, compareLabels } from "./compare";

describe("compareEnv (BENCH_COMPARE_ENV)", () => {
  it("reads NAME=value words, values may hold '='", () => {
    expect(compareEnv("REQUEST_LOG=off  X=a=b")).toEqual({ REQUEST_LOG: "off", X: "a=b" });
  });
  it("gives nothing when unset or empty", () => {
    expect(compareEnv(undefined)).toEqual({});
    expect(compareEnv(" ")).toEqual({});
  });
  it("refuses a word that is not NAME=value", () => {
    expect(() => compareEnv("REQUEST_LOG")).toThrow(/REQUEST_LOG" is not NAME=value/);
    expect(() => compareEnv("=off")).toThrow(/not NAME=value/);
  });
});

describe("compareLabels (the comparison table's sides)", () => {
  it("names another checkout by its directory", () => {
    expect(compareLabels("/work/other", "/work/main", "REQUEST_LOG=off")).toEqual(["other", "this checkout"]);
  });
  it("names a second app of this checkout by what sets it apart", () => {
    expect(compareLabels("/work/main/.", "/work/main", "REQUEST_LOG=off")).toEqual([
      "this checkout with REQUEST_LOG=off",
      "this checkout",
    ]);
    expect(compareLabels("/work/main", "/work/main/", " A=1 ", "--max-semi-space-size=32")).toEqual([
      "this checkout with A=1 --max-semi-space-size=32",
      "this checkout",
    ]);
    expect(compareLabels("/work/main", "/work/main")).toEqual([
      "this checkout with the same settings",
      "this checkout",
    ]);
  });
});
