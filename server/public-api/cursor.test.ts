import { createHmac } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "@/server/errors";
import { canonicalJson } from "@/server/lib/canonical-json";
import { setClock } from "@/server/lib/clock";
import { setTestEnv } from "@/server/testing/test-db";
import { bindCursor, CURSOR_TTL_MS, decodeCursor, encodeCursor, type CursorBinding } from "./cursor";

// Cursors (spec "Limits: pagination rules"): signed, valid 24 hours, bound to tenant, key mode, route and
// filter set; anything else is 422 validation_failed on /cursor.

const SECRET = "test-secret-0123456789abcdef0123456789abcdef";
const T0 = Date.UTC(2026, 0, 10, 12);
let clock = T0;

const binding: CursorBinding = {
  tenantId: "11111111-1111-4111-8111-111111111111",
  keyMode: "live",
  route: "listCards",
  filters: { include_deleted: false, q: "tea" },
};
const position = ["2026-01-10T11:00:00.000Z", "0b8c2d1e-0000-4000-8000-000000000001"];

beforeEach(() => {
  setTestEnv({ APP_SECRET: SECRET });
  clock = T0;
  setClock(() => clock);
});
afterEach(() => setClock(undefined));

function refusal(fn: () => unknown): ApiError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  expect([e.status, e.code]).toEqual([422, "validation_failed"]);
  expect(e.extras.errors).toEqual([
    { field: "/cursor", code: "invalid_cursor", message: expect.stringMatching(/restart without a cursor/) },
  ]);
  return e;
}

/** Signs arbitrary data the way the server does, to reach checks behind the signature. */
const forge = (data: string) => `${data}.${createHmac("sha256", `cursor:${SECRET}`).update(data).digest("base64url")}`;

describe("encodeCursor / decodeCursor", () => {
  it("round-trips the position", () => {
    const c = encodeCursor(binding, position);
    expect(decodeCursor(c, binding)).toEqual(position);
    expect(decodeCursor(encodeCursor(binding, [3, null, "x"]), binding)).toEqual([3, null, "x"]);
  });

  it("is opaque URL-safe text that does not show the filters", () => {
    const c = encodeCursor(binding, position);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(c.split(".")[0], "base64url").toString()).not.toContain("tea");
  });

  it("ignores filter order and filters left undefined", () => {
    const c = encodeCursor(binding, position);
    expect(decodeCursor(c, { ...binding, filters: { q: "tea", include_deleted: false, status: undefined } })).toEqual(
      position,
    );
  });

  it("is valid until 24 hours after it was made, and refused from then on", () => {
    expect(CURSOR_TTL_MS).toBe(86_400_000);
    const c = encodeCursor(binding, position);
    clock = T0 + CURSOR_TTL_MS - 1;
    expect(decodeCursor(c, binding)).toEqual(position);
    clock = T0 + CURSOR_TTL_MS;
    refusal(() => decodeCursor(c, binding));
  });

  it.each([
    ["tenant", { tenantId: "22222222-2222-4222-8222-222222222222" }],
    ["key mode", { keyMode: "test" }],
    ["route", { route: "listWebhooks" }],
    ["a changed filter value", { filters: { include_deleted: true, q: "tea" } }],
    ["an added filter", { filters: { include_deleted: false, q: "tea", status: "active" } }],
    ["a removed filter", { filters: { include_deleted: false } }],
    ["a filter of another type", { filters: { include_deleted: "false", q: "tea" } }],
  ])("is refused for another %s", (_name, change) => {
    const c = encodeCursor(binding, position);
    refusal(() => decodeCursor(c, { ...binding, ...change } as CursorBinding));
  });

  it("gives a binding made once with bindCursor (as a request's) the same cursors as the plain binding", () => {
    const bound = bindCursor(binding);
    expect(bound.tag).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // The tag cursors have always carried (the first 12 bytes of the filters' MAC): a deploy keeps the
    // cursors issued before it valid for their 24 hours.
    const filtersMac = createHmac("sha256", `cursor:${SECRET}`).update(canonicalJson(binding.filters)).digest();
    expect(bound.tag).toBe(filtersMac.subarray(0, 12).toString("base64url"));
    expect(decodeCursor(encodeCursor(bound, position), binding)).toEqual(position);
    expect(decodeCursor(encodeCursor(binding, position), bound)).toEqual(position);
    expect(encodeCursor(bound, position)).toBe(encodeCursor(binding, position));
    const otherFilters = bindCursor({ ...binding, filters: { include_deleted: true, q: "tea" } });
    refusal(() => decodeCursor(encodeCursor(bound, position), otherFilters));
    refusal(() => decodeCursor(encodeCursor(otherFilters, position), binding));
  });

  it("is refused when any character is changed", () => {
    const c = encodeCursor(binding, position);
    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (const i of [0, 5, c.indexOf(".") - 1, c.indexOf(".") + 1, c.length - 1]) {
      // Flip the top bit of the 6-bit group: always a data bit, never a padding bit of the last character.
      const flipped = c.slice(0, i) + B64[B64.indexOf(c[i]) ^ 32] + c.slice(i + 1);
      refusal(() => decodeCursor(flipped, binding));
    }
  });

  it("is refused when the MAC's last characters change, even where base64 would decode them to the same bytes", () => {
    const c = encodeCursor(binding, position);
    const last = c[c.length - 1]!;
    // Same top four bits, different spare bits: Buffer.from(…, "base64url") gives identical bytes.
    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = B64[B64.indexOf(last) ^ 1]!;
    expect(Buffer.from(c.split(".")[1]!, "base64url")).toEqual(
      Buffer.from(c.split(".")[1]!.slice(0, -1) + twin, "base64url"),
    );
    refusal(() => decodeCursor(c.slice(0, -1) + twin, binding));
  });

  it("is refused when the payload is swapped for another cursor's", () => {
    const mine = encodeCursor(binding, position);
    const other = encodeCursor(binding, ["2020-01-01T00:00:00.000Z", "x"]);
    refusal(() => decodeCursor(`${other.split(".")[0]}.${mine.split(".")[1]}`, binding));
  });

  it("is refused when signed with another server secret", () => {
    const c = encodeCursor(binding, position);
    setTestEnv({ APP_SECRET: "another-secret-0123456789abcdef0123456789" });
    refusal(() => decodeCursor(c, binding));
  });

  it.each(["", ".", "abc", "abc.", ".abc", "a.b.c", "%%%.***", "eyJ0IjoxfQ"])(
    "refuses the malformed cursor %j",
    (token) => {
      refusal(() => decodeCursor(token, binding));
    },
  );

  it("refuses correctly signed payloads that are not a cursor", () => {
    refusal(() => decodeCursor(forge(Buffer.from("not json").toString("base64url")), binding));
    const valid = JSON.parse(Buffer.from(encodeCursor(binding, position).split(".")[0], "base64url").toString());
    const variant = (patch: object) => forge(Buffer.from(JSON.stringify({ ...valid, ...patch })).toString("base64url"));
    expect(decodeCursor(variant({}), binding)).toEqual(position); // the forge is faithful
    refusal(() => decodeCursor(variant({ p: "not an array" }), binding));
    refusal(() => decodeCursor(variant({ e: String(T0 + 1000) }), binding));
    refusal(() => decodeCursor(variant({ e: undefined }), binding));
  });
});
