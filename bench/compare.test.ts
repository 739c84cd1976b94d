import { describe, expect, it } from "vitest";
import { compareEnv } from "./compare";

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
