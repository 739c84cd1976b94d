import path from "node:path";
import type { LoadSpec } from "./load";
import { cpuSince, cpuSnapshot } from "./process-stats";
import type { LoadFigures } from "./wrk";
import { median } from "./median";
import { P99_TARGET_FACTOR } from "./p99-target";

// `npm run bench -- --compare <other checkout> --only <texts>`: two builds measured in turn on one database.
// On this project's VMs the same build's req/s moved by up to a third from one full run to the next, so
// a change of a few percent could not be told from the host's drift by runs made one after the other.
// Here both apps run at once, pinned to the same core, on the same seeded database (embedded: copies of
// one seeded directory, PGlite having one opener); each round drives
// every chosen scenario on one app, then on the other (the order swapped every round), so a slow stretch
// of the host falls on both. A scenario's ratio is taken to the same app's GET /api/health of the same
// round, and so is its p99 (the read p99 line: 1.5 × health's p99, bench/p99-target.ts); the medians over
// the rounds are reported.

/** One side of a comparison: an app that is up, its origin (`http://localhost:<port>`) and its pid. */
export interface CompareSide {
  label: string;
  origin: string;
  pid: number;
}

/** A scenario's medians over the rounds for one side. */
export interface CompareFigures {
  rps: number;
  /** Median over the rounds of (this scenario's req/s ÷ the same app's GET /api/health req/s that round). */
  ratio: number;
  /** App CPU time per answered request, ms. */
  cpuMsPerRequest: number;
  p99: number;
  /** Median over the rounds of (this scenario's p99 ÷ the same app's GET /api/health p99 that round). */
  p99ToHealth: number;
}

/** What {@link compareBuilds} reports per scenario, each side's medians. */
export interface CompareRow {
  name: string;
  sides: CompareFigures[];
}

/**
 * Runs `health` and `scenarios` (specs against the first side's origin; the same path and headers go to
 * each side's) on each side in turn for `rounds` rounds, the first round with each spec's warm-up and later
 * rounds with 2 s, and answers each scenario's medians per side. `dbName` names the bench database whose
 * PostgreSQL processes are not counted here (app CPU only).
 */
export async function compareBuilds(o: {
  sides: [CompareSide, CompareSide];
  health: LoadSpec;
  scenarios: LoadSpec[];
  rounds: number;
  drive: (s: LoadSpec) => Promise<LoadFigures>;
  log: (m: string) => void;
}): Promise<CompareRow[]> {
  const first = o.sides[0].origin;
  const specs = [o.health, ...o.scenarios];
  // per spec, per side: each round's figures
  const seen = specs.map(() => o.sides.map(() => [] as { rps: number; cpuMs: number; p99: number }[]));
  for (let round = 0; round < o.rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) {
      const s = o.sides[side]!;
      for (const [i, spec] of specs.entries()) {
        const onSide: LoadSpec = {
          ...spec,
          url: spec.url.replace(first, s.origin),
          warmupS: round === 0 ? spec.warmupS : Math.min(2, spec.warmupS),
        };
        const before = cpuSnapshot(s.pid, null);
        const r = await o.drive(onSide);
        const cpu = cpuSince(before, cpuSnapshot(s.pid, null));
        // The snapshot spans the warm-up too, at the same load: CPU % of the whole span per request.
        seen[i]![side]!.push({ rps: r.rps, cpuMs: (cpu.appPct * 10) / r.rps, p99: r.p99 });
        o.log(
          `  round ${round + 1} ${s.label} ${spec.name}: ${Math.round(r.rps)} req/s, app ${((cpu.appPct * 10) / r.rps).toFixed(3)} ms/request, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ""}`,
        );
      }
    }
  }
  return specs.map((spec, i) => ({
    name: spec.name,
    sides: o.sides.map((_, side) => {
      const runs = seen[i]![side]!;
      const health = seen[0]![side]!;
      return {
        rps: median(runs.map((r) => r.rps)),
        ratio: median(runs.map((r, round) => r.rps / health[round]!.rps)),
        cpuMsPerRequest: median(runs.map((r) => r.cpuMs)),
        p99: median(runs.map((r) => r.p99)),
        p99ToHealth: median(runs.map((r, round) => r.p99 / health[round]!.p99)),
      };
    }),
  }));
}

/**
 * The comparison as a markdown table: per scenario, each side's medians and the second side's change; the
 * p99 also as a multiple of the same app's GET /api/health p99 of the same round (the read p99 line is
 * {@link P99_TARGET_FACTOR} × it).
 */
export function compareTable(rows: CompareRow[], labels: [string, string], rounds: number): string {
  const head = `| Scenario | ${labels[0]} req/s (ratio) | ${labels[1]} req/s (ratio) | ratio ${labels[1]} ÷ ${labels[0]} | app ms/request ${labels[0]} → ${labels[1]} | p99 ms ${labels[0]} → ${labels[1]} | p99 ÷ health's p99 ${labels[0]} → ${labels[1]} |`;
  const lines = rows.map(({ name, sides: [a, b] }) => {
    const f = (x: CompareFigures) => `${Math.round(x.rps)} (${x.ratio.toFixed(2)})`;
    return `| ${name} | ${f(a!)} | ${f(b!)} | ${(b!.ratio / a!.ratio).toFixed(3)} | ${a!.cpuMsPerRequest.toFixed(3)} → ${b!.cpuMsPerRequest.toFixed(3)} | ${a!.p99.toFixed(1)} → ${b!.p99.toFixed(1)} | ${a!.p99ToHealth.toFixed(2)} → ${b!.p99ToHealth.toFixed(2)} |`;
  });
  return [
    `Medians of ${rounds} alternated rounds, both apps up at once on one core and one database (embedded: copies of one seeded directory). A read meets the p99 line when its p99 is at most ${P99_TARGET_FACTOR} × health's.`,
    "",
    head,
    "|---|---:|---:|---:|---:|---:|---:|",
    ...lines,
  ].join("\n");
}

/**
 * `BENCH_COMPARE_ENV` → the variables it names: `"A=1 B=two"` → `{ A: "1", B: "two" }` (values without
 * spaces). Nothing for undefined or empty.
 * @throws Error on a word without `=`.
 */
export function compareEnv(text: string | undefined): Record<string, string> {
  const words = (text ?? "").split(" ").filter(Boolean);
  return Object.fromEntries(
    words.map((w) => {
      const at = w.indexOf("=");
      if (at <= 0) throw new Error(`BENCH_COMPARE_ENV: "${w}" is not NAME=value`);
      return [w.slice(0, at), w.slice(at + 1)];
    }),
  );
}

/**
 * The labels of a comparison's two sides, `[other, this]`: the other checkout's directory name and
 * "this checkout". When the other app is this checkout too (`--compare .`, two settings of one build),
 * the directory name would fit both sides, so the other side is named by what sets it apart: its
 * `BENCH_COMPARE_ENV` and `BENCH_COMPARE_NODE_FLAGS` as given.
 * @param otherRoot the other checkout's absolute path
 * @param thisRoot this checkout's absolute path
 * @param otherEnv `BENCH_COMPARE_ENV`, if set
 * @param otherNodeFlags `BENCH_COMPARE_NODE_FLAGS`, if set
 */
export function compareLabels(
  otherRoot: string,
  thisRoot: string,
  otherEnv?: string,
  otherNodeFlags?: string,
): [string, string] {
  if (path.resolve(otherRoot) !== path.resolve(thisRoot)) return [path.basename(otherRoot), "this checkout"];
  const apart = [otherEnv, otherNodeFlags].map((t) => t?.trim()).filter(Boolean);
  return [`this checkout with ${apart.length ? apart.join(" ") : "the same settings"}`, "this checkout"];
}
