import { describe, expect, it } from "vitest";
import { compareBuilds, compareEnv, compareLabels, compareTable } from "./compare";

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

describe("compareBuilds and compareTable (the p99 against the same round's GET /api/health)", () => {
  it("takes each read's p99 as a multiple of the same app's health p99 in the same round", async () => {
    // Side a: health p99 20 then 40 ms, the read 30 then 80 ms (1.5 and 2.0 ×); side b: health 30, the read 30.
    const figures: Record<string, number[]> = {
      "a health": [20, 40, 20],
      "a read": [30, 80, 30],
      "b health": [30, 30, 30],
      "b read": [30, 30, 30],
    };
    const rows = await compareBuilds({
      sides: [
        { label: "a", origin: "http://a", pid: process.pid },
        { label: "b", origin: "http://b", pid: process.pid },
      ],
      health: { name: "GET /api/health", url: "http://a/api/health", connections: 1, durationS: 1, warmupS: 1 },
      scenarios: [{ name: "GET /me", url: "http://a/me", connections: 1, durationS: 1, warmupS: 1 }],
      rounds: 3,
      drive: async (s) => {
        const key = `${s.url.startsWith("http://a") ? "a" : "b"} ${s.url.endsWith("/api/health") ? "health" : "read"}`;
        const p99 = figures[key]!.shift()!;
        return { name: s.name, rps: 1000, p50: p99 / 3, p99, total: 1000, non2xx: 0 };
      },
      log: () => {},
    });
    expect(rows.map((r) => r.name)).toEqual(["GET /api/health", "GET /me"]);
    // Medians of [1.5, 2.0, 1.5] and [1, 1, 1]; health against itself is 1.
    expect(rows[1]!.sides.map((s) => s.p99ToHealth)).toEqual([1.5, 1]);
    expect(rows[1]!.sides.map((s) => s.p99)).toEqual([30, 30]);
    expect(rows[0]!.sides.map((s) => s.p99ToHealth)).toEqual([1, 1]);
    const table = compareTable(rows, ["a", "b"], 3);
    expect(table).toContain("| p99 ÷ health's p99 a → b |");
    expect(table).toContain("| 30.0 → 30.0 | 1.50 → 1.00 |");
    expect(table).toContain("at most 1.5 × health's");
  });
});
