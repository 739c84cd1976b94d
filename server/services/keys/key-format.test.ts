import { describe, expect, it } from "vitest";
import { generateKey, hashSecret, parseKey, secretMatches } from "./key-format";

// API key strings sk_<mode>_<cell>_<id20>_<secret40>: the cell is readable without a database so a
// cell answers another cell's key with wrong_cell (spec "Authentication" 2); only the hash is stored.

const ID = "abcdefghijklmnopqrst";
const SECRET = "A".repeat(20) + "z9".repeat(10);

describe("generateKey", () => {
  it("makes keys of the format, carrying mode and cell", () => {
    for (const mode of ["live", "test"] as const) {
      for (const cell of ["ru", "en", "id"] as const) {
        const g = generateKey(mode, cell);
        expect(g.key).toMatch(new RegExp(`^sk_${mode}_${cell}_[a-z2-7]{20}_[A-Za-z0-9]{40}$`));
        const p = parseKey(g.key)!;
        expect(p).toEqual({ mode, cell, keyId: g.keyId, secret: g.key.split("_")[4] });
        expect(g.keyId).toBe(`kid_${g.key.split("_")[3]}`);
        expect(g.secretHash).toBe(hashSecret(p.secret));
        expect(g.secretHash).toMatch(/^[0-9a-f]{64}$/);
        expect(g.secretHash).not.toContain(p.secret);
      }
    }
  });

  it("never repeats an id or a secret", () => {
    const keys = Array.from({ length: 200 }, () => generateKey("live", "ru"));
    expect(new Set(keys.map((k) => k.keyId)).size).toBe(200);
    expect(new Set(keys.map((k) => k.key.split("_")[4])).size).toBe(200);
  });
});

describe("parseKey", () => {
  it("reads mode, cell, key id and secret", () => {
    expect(parseKey(`sk_test_en_${ID}_${SECRET}`)).toEqual({
      mode: "test",
      cell: "en",
      keyId: `kid_${ID}`,
      secret: SECRET,
    });
  });

  it.each([
    ["empty", ""],
    ["no prefix", `${ID}_${SECRET}`],
    ["unknown mode", `sk_prod_ru_${ID}_${SECRET}`],
    ["unknown cell", `sk_live_us_${ID}_${SECRET}`],
    ["upper-case cell", `sk_live_RU_${ID}_${SECRET}`],
    ["short id", `sk_live_ru_${ID.slice(1)}_${SECRET}`],
    ["id outside base32", `sk_live_ru_abcdefghijklmnopqrs1_${SECRET}`],
    ["short secret", `sk_live_ru_${ID}_${SECRET.slice(1)}`],
    ["long secret", `sk_live_ru_${ID}_${SECRET}A`],
    ["secret with symbols", `sk_live_ru_${ID}_${SECRET.slice(1)}-`],
    ["surrounding space", ` sk_live_ru_${ID}_${SECRET}`],
    ["trailing newline", `sk_live_ru_${ID}_${SECRET}\n`],
    ["Bearer included", `Bearer sk_live_ru_${ID}_${SECRET}`],
    ["key id instead of key", `kid_${ID}`],
    ["unicode", `sk_live_ru_${ID}_${"я".repeat(40)}`],
  ])("refuses %s", (_name, text) => {
    expect(parseKey(text)).toBeNull();
  });
});

describe("secretMatches", () => {
  it("matches only the secret whose hash is stored", () => {
    const h = hashSecret(SECRET);
    expect(secretMatches(SECRET, h)).toBe(true);
    expect(secretMatches(SECRET.slice(0, -1) + "B", h)).toBe(false);
    expect(secretMatches(SECRET, h.toUpperCase())).toBe(true); // hex decodes either case
  });

  it("is false, not an exception, for a malformed stored hash", () => {
    expect(secretMatches(SECRET, "")).toBe(false);
    expect(secretMatches(SECRET, "abc")).toBe(false);
    expect(secretMatches(SECRET, "0".repeat(64))).toBe(false);
  });
});
