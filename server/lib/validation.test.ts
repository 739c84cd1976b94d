import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "@/server/errors";
import { check, fieldErrors, toPointer, validationError } from "./validation";

// Zod issues become the spec's `errors[]` (spec "Problem body"): `field` is an RFC 6901 JSON Pointer,
// `code` a stable machine code such as required, out_of_range, invalid_format.

const errorsOf = (schema: z.ZodType, input: unknown) => {
  const r = check(schema, input);
  if (r.ok) throw new Error("expected a failure");
  return r.errors;
};

describe("toPointer", () => {
  it("writes RFC 6901 pointers with ~ and / escaped", () => {
    expect(toPointer([])).toBe("");
    expect(toPointer(["limit"])).toBe("/limit");
    expect(toPointer(["buttons", 0, "url"])).toBe("/buttons/0/url");
    expect(toPointer(["a/b", "c~d"])).toBe("/a~1b/c~0d");
    expect(toPointer(["~/"])).toBe("/~0~1");
  });
});

describe("check", () => {
  const Body = z.strictObject({
    name: z.string().min(1).max(5),
    limit: z.number().int().min(1).max(100).optional(),
    url: z.url().optional(),
    email: z.email().optional(),
    mode: z.enum(["live", "test"]).optional(),
    tags: z.array(z.string()).max(2).optional(),
    nested: z.object({ items: z.array(z.object({ code: z.string() })) }).optional(),
  });

  it("returns the parsed value when valid", () => {
    expect(check(Body, { name: "a", limit: 3 })).toEqual({ ok: true, value: { name: "a", limit: 3 } });
  });

  it("reports a missing field as required at its pointer", () => {
    expect(errorsOf(Body, {})).toEqual([{ field: "/name", code: "required", message: expect.any(String) }]);
  });

  it("reports a value of the wrong type as invalid_type, not required", () => {
    expect(errorsOf(Body, { name: 5 })[0]).toMatchObject({ field: "/name", code: "invalid_type" });
    expect(errorsOf(Body, { name: null })[0]).toMatchObject({ field: "/name", code: "invalid_type" });
  });

  it("maps numeric bounds to out_of_range, string lengths to too_short/too_long, array sizes to too_few/too_many", () => {
    expect(errorsOf(Body, { name: "a", limit: 0 })[0]).toMatchObject({ field: "/limit", code: "out_of_range" });
    expect(errorsOf(Body, { name: "a", limit: 101 })[0]).toMatchObject({ field: "/limit", code: "out_of_range" });
    expect(errorsOf(Body, { name: "" })[0]).toMatchObject({ field: "/name", code: "too_short" });
    expect(errorsOf(Body, { name: "toolong" })[0]).toMatchObject({ field: "/name", code: "too_long" });
    expect(errorsOf(Body, { name: "a", tags: ["x", "y", "z"] })[0]).toMatchObject({ field: "/tags", code: "too_many" });
    expect(errorsOf(z.array(z.number()).min(1), [])[0]).toMatchObject({ field: "", code: "too_few" });
  });

  it("maps format checks to invalid_format and enum misses to invalid_value", () => {
    expect(errorsOf(Body, { name: "a", url: "not a url" })[0]).toMatchObject({ field: "/url", code: "invalid_format" });
    expect(errorsOf(Body, { name: "a", email: "nobody" })[0]).toMatchObject({
      field: "/email",
      code: "invalid_format",
    });
    expect(errorsOf(Body, { name: "a", mode: "prod" })[0]).toMatchObject({ field: "/mode", code: "invalid_value" });
  });

  it("reports each unknown field at its own pointer as unknown_field", () => {
    const errors = errorsOf(Body, { name: "a", extra: 1, "we/ird": 2 });
    expect(errors).toEqual([
      { field: "/extra", code: "unknown_field", message: 'Unknown field "extra".' },
      { field: "/we~1ird", code: "unknown_field", message: 'Unknown field "we/ird".' },
    ]);
  });

  it("points into arrays and nested objects", () => {
    expect(errorsOf(Body, { name: "a", nested: { items: [{ code: "x" }, {}] } })).toEqual([
      { field: "/nested/items/1/code", code: "required", message: expect.any(String) },
    ]);
  });

  it("collects every failing field, not just the first", () => {
    const fields = errorsOf(Body, { limit: 500, mode: "x" })
      .map((e) => e.field)
      .sort();
    expect(fields).toEqual(["/limit", "/mode", "/name"]);
  });

  it("uses a custom issue's params.code when given, else invalid_value", () => {
    const coded = z
      .string()
      .superRefine((_, ctx) =>
        ctx.addIssue({ code: "custom", message: "Not supported.", params: { code: "not_supported" } }),
      );
    expect(errorsOf(coded, "x")).toEqual([{ field: "", code: "not_supported", message: "Not supported." }]);
    const plain = z.string().refine(() => false, "Nope.");
    expect(errorsOf(plain, "x")).toEqual([{ field: "", code: "invalid_value", message: "Nope." }]);
  });

  it("reports a union miss as invalid_value", () => {
    expect(errorsOf(z.object({ v: z.union([z.literal("a"), z.number()]) }), { v: "b" })[0]).toMatchObject({
      field: "/v",
      code: "invalid_value",
    });
  });
});

describe("fieldErrors", () => {
  it("prefixes pointers", () => {
    const r = z.object({ a: z.string() }).safeParse({});
    expect(!r.success && fieldErrors(r.error.issues, ["query"])).toEqual([
      { field: "/query/a", code: "required", message: expect.any(String) },
    ]);
  });
});

describe("validationError", () => {
  it("is a 422 validation_failed carrying errors[]; the detail names a single field", () => {
    const e = validationError([{ field: "/limit", code: "out_of_range", message: "Too big." }]);
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.message]).toEqual([422, "validation_failed", "/limit: Too big."]);
    expect(e.extras.errors).toHaveLength(1);
  });

  it("names the body when the pointer is the whole document, and counts several fields", () => {
    expect(validationError([{ field: "", code: "invalid_type", message: "Expected object." }]).message).toBe(
      "The body: Expected object.",
    );
    const many = validationError([
      { field: "/a", code: "required", message: "x" },
      { field: "/b", code: "required", message: "y" },
    ]);
    expect(many.message).toBe("2 fields are invalid; see errors.");
    expect(many.extras.errors).toHaveLength(2);
  });
});
