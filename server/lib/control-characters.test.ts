import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_REFUSED_CHARACTER_ERRORS, REFUSED_CHARACTER, refusedCharacterErrors } from "./control-characters";
import { check } from "./validation";

// Issue 76 item 4: which characters no text may hold, and where the one check finds them.

const fields = (input: unknown) => refusedCharacterErrors(input).map((e) => e.field);

describe("REFUSED_CHARACTER", () => {
  it("refuses U+0000, every other C0 control but tab, line feed and carriage return, and lone surrogates", () => {
    for (let c = 0; c < 32; c++)
      expect(REFUSED_CHARACTER.test(`a${String.fromCharCode(c)}b`), `U+${c.toString(16)}`).toBe(
        ![9, 10, 13].includes(c),
      );
    expect(REFUSED_CHARACTER.test("\ud800")).toBe(true);
    expect(REFUSED_CHARACTER.test("x\udfff")).toBe(true);
    expect(REFUSED_CHARACTER.test("\udfff\ud800")).toBe(true); // reversed halves are two lone surrogates
  });

  it("keeps ordinary text: tabs, line breaks, DEL, C1 controls, emoji (a surrogate pair), any script", () => {
    for (const ok of ["", "Line 1\r\nLine 2\tend", "\u007f\u0085\u2028", "😀 Ж é ü 中文", "\ud83d\ude00"])
      expect(REFUSED_CHARACTER.test(ok), JSON.stringify(ok)).toBe(false);
  });
});

describe("refusedCharacterErrors", () => {
  it("names every refused string by JSON Pointer, in document order, and each key holding one", () => {
    const input = {
      name: "a\u0000b",
      page: { title: "ok", "t/i~tle": "\u001b[31m" },
      buttons: [{ label: "fine" }, { label: "\ud800" }],
      "bad\u0000key": 1,
      tags: ["x", "y\u0007"],
    };
    expect(refusedCharacterErrors(input)).toEqual(
      ["/name", "/page/t~1i~0tle", "/buttons/1/label", "/bad\u0000key", "/tags/1"].map((field) => ({
        field,
        code: "invalid_character",
        message: expect.stringContaining("control characters"),
      })),
    );
  });

  it("answers nothing for clean input and for values that are not text", () => {
    expect(refusedCharacterErrors({ a: "tab\there", b: [1, true, null, { c: "line\nbreak" }] })).toEqual([]);
    for (const v of [undefined, null, 0, false, "", "plain"]) expect(refusedCharacterErrors(v)).toEqual([]);
  });

  it("names the whole input when it is a refused string", () => {
    expect(fields("\u0000")).toEqual([""]);
  });

  it("walks any depth without recursion (a 200,000-deep array costs no stack)", () => {
    const depth = 200_000;
    const deep = JSON.parse("[".repeat(depth) + '"\\u0000"' + "]".repeat(depth));
    const [e] = refusedCharacterErrors(deep);
    expect(e.field).toBe("/0".repeat(depth));
  });

  it(`stops after ${MAX_REFUSED_CHARACTER_ERRORS} errors`, () => {
    expect(refusedCharacterErrors(Array(1000).fill("\u0000"))).toHaveLength(MAX_REFUSED_CHARACTER_ERRORS);
  });
});

describe("check (the public API's validation) refuses them whatever the schema", () => {
  const Body = z.strictObject({
    name: z.string().max(5),
    code: z.string().regex(/^[a-z]+$/),
    meta: z.record(z.string(), z.unknown()).optional(),
  });

  it("refuses a string the schema would accept, and a string inside an open JSON value", () => {
    const r = check(Body, { name: "a\u0000", code: "ok", meta: { note: ["x\u0001"] } });
    expect(r).toEqual({
      ok: false,
      errors: [
        expect.objectContaining({ field: "/name", code: "invalid_character" }),
        expect.objectContaining({ field: "/meta/note/0", code: "invalid_character" }),
      ],
    });
  });

  it("reports the schema's errors on other fields beside them, once per field", () => {
    const r = check(Body, { name: "toolong\u0000", code: "BAD" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => [e.field, e.code])).toEqual([
      ["/name", "invalid_character"],
      ["/code", "invalid_format"],
    ]);
  });

  it("still accepts tabs and line breaks", () => {
    expect(check(Body, { name: "a\tb\n", code: "ok" })).toEqual({ ok: true, value: { name: "a\tb\n", code: "ok" } });
  });
});
