import { describe, expect, it } from "vitest";
import { hasErrorCode } from "./error-codes";

const wrapped = (code: unknown, depth: number): Error => {
  let e: Error = Object.assign(new Error("driver"), { code });
  for (let i = 0; i < depth; i++) e = new Error("wrapper", { cause: e });
  return e;
};

describe("hasErrorCode", () => {
  it("finds a code on the error or down its cause chain, as one code or one of a set", () => {
    expect(hasErrorCode(wrapped("23505", 0), "23505")).toBe(true);
    expect(hasErrorCode(wrapped("23505", 1), "23505")).toBe(true);
    expect(hasErrorCode(wrapped("ECONNREFUSED", 2), new Set(["EPIPE", "ECONNREFUSED"]))).toBe(true);
  });

  it("answers false for another code, a code that is not a string, no error, or a cause five deep", () => {
    expect(hasErrorCode(wrapped("23502", 1), "23505")).toBe(false);
    expect(hasErrorCode(wrapped(23505, 0), "23505")).toBe(false);
    expect(hasErrorCode(undefined, "23505")).toBe(false);
    expect(hasErrorCode(wrapped("23505", 5), "23505")).toBe(false);
  });
});
