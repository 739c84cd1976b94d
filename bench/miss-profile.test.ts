import { describe, expect, it } from "vitest";
import { missProfileSection, missVerdict, type MissProfile } from "./miss-profile";
import { busyShares, timeByOwner, type CpuProfile } from "./profile-owners";

describe("missVerdict", () => {
  it("is ours when the target is in reach of our part of a request", () => {
    // 1.26 ms a request, a quarter of it ours, 0.67 against 0.7: 0.054 ms to cut, 0.315 ms ours.
    const v = missVerdict({ kind: "ratio", value: 0.67, target: 0.7, appCpuMsPerRequest: 1.26, share: 0.25 });
    expect(v.verdict).toBe("ours");
    expect(v.oursMs).toBeCloseTo(0.315, 3);
    expect(v.withoutOurs).toBeCloseTo(0.8933, 3);
    expect(v.cutMs).toBeCloseTo(0.054, 3);
  });

  it("scales a p99 with the request's time", () => {
    // 54 ms at 0.91 ms a request, 30 % ours: 37.8 ms with ours at no time; 50 ms needs 0.91 × (1 − 50/54).
    const ours = missVerdict({ kind: "p99", value: 54, target: 50, appCpuMsPerRequest: 0.91, share: 0.3 });
    expect(ours.verdict).toBe("ours");
    expect(ours.withoutOurs).toBeCloseTo(37.8, 3);
    expect(ours.cutMs).toBeCloseTo(0.0674, 3);
    // 120 ms with a tenth ours: 108 ms, still over the line.
    const notOurs = missVerdict({ kind: "p99", value: 120, target: 50, appCpuMsPerRequest: 1, share: 0.1 });
    expect(notOurs.verdict).toBe("not ours");
    expect(missVerdict({ kind: "p99", value: 42, target: 50, appCpuMsPerRequest: 1, share: 0.1 }).verdict).toBe("met");
  });

  it("is not ours when the rest alone misses the target", () => {
    // Without our tenth the ratio would be 0.5 ÷ 0.9 = 0.56, still under 0.8.
    const v = missVerdict({ kind: "ratio", value: 0.5, target: 0.8, appCpuMsPerRequest: 2, share: 0.1 });
    expect(v.verdict).toBe("not ours");
    expect(v.withoutOurs).toBeCloseTo(0.5556, 3);
    expect(v.cutMs).toBeCloseTo(0.75, 3);
  });
});

// Node 1 is the root, 2 our function (a file under server/), 3 a framework frame, 4 the garbage collector.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: "(root)", url: "" }, children: [2, 3, 4] },
    { id: 2, callFrame: { functionName: "handlePublicRequest", url: `file://${process.cwd()}/server/x.ts` } },
    { id: 3, callFrame: { functionName: "emit", url: "node:events" } },
    { id: 4, callFrame: { functionName: "(garbage collector)", url: "" } },
  ],
  startTime: 1_000,
  endTime: 1_600,
  // At 1100 ours, 1200 framework, 1300 ours, 1400 gc, 1500 framework, 1600 framework.
  samples: [2, 3, 2, 4, 3, 3],
  timeDeltas: [100, 100, 100, 100, 100, 100],
};

describe("timeByOwner", () => {
  it("counts only the samples inside the window", () => {
    const all = timeByOwner(profile);
    expect(all).toMatchObject({ ours: 200, framework: 300, gc: 100 });
    const window = timeByOwner(profile, [1_250, 1_450]);
    expect(window).toMatchObject({ ours: 100, framework: 0, gc: 100 });
  });

  it("charges the garbage collector to each side by the bytes it allocated", () => {
    const time = timeByOwner(profile);
    const plain = busyShares(time);
    expect(plain.ours).toBeCloseTo(200 / 600);
    expect(plain.gc).toBeCloseTo(100 / 600);
    const charged = busyShares(time, { ours: 1, engine: 0, framework: 3, loading: 50 });
    expect(charged.ours).toBeCloseTo(225 / 600);
    expect(charged.framework).toBeCloseTo(375 / 600);
    expect(charged.gc).toBe(0);
  });
});

describe("missProfileSection", () => {
  it("writes one row per miss with its verdict", () => {
    const p: MissProfile = {
      scenario: "GET /cards?limit=10",
      kind: "ratio",
      value: 0.67,
      target: 0.7,
      appCpuMsPerRequest: 1.26,
      shares: { ours: 0.25, engine: 0, framework: 0.75, gc: 0, busyUs: 1 },
      profiledRps: 700,
      files: [],
      ...missVerdict({ kind: "ratio", value: 0.67, target: 0.7, appCpuMsPerRequest: 1.26, share: 0.25 }),
    };
    const q: MissProfile = {
      ...p,
      kind: "p99",
      value: 54,
      target: 49.5,
      ...missVerdict({ kind: "p99", value: 54, target: 49.5, appCpuMsPerRequest: 1.26, share: 0.25 }),
    };
    const md = missProfileSection([p, q]).join("\n");
    expect(md).toContain(
      "| GET /cards?limit=10 | p99 54.0 ms ≤ 49.5 ms | 1.26 | 25.0 % | – | 75.0 % | 0.32 | 40.5 ms | ours: met with 105 µs a request less |",
    );
    expect(md).toContain(
      "| GET /cards?limit=10 | ratio 0.67 ≥ 0.7 | 1.26 | 25.0 % | – | 75.0 % | 0.32 | 0.89 | ours: met with 54 µs a request less |",
    );
    expect(missProfileSection([])).toEqual([]);
  });
});

describe("missVerdict on a met target", () => {
  it("says met and asks for no cut", () => {
    const v = missVerdict({ kind: "ratio", value: 0.78, target: 0.7, appCpuMsPerRequest: 1.1, share: 0.2 });
    expect(v.verdict).toBe("met");
    expect(v.cutMs).toBe(0);
  });
});
