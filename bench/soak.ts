import { writeFileSync } from "node:fs";
import path from "node:path";
import type { LoadSpec } from "./load";
import type { LoadFigures } from "./wrk";

/** What a soak saw: load figures and the app's resident memory sampled every 30 s (MB). */
export interface SoakFigures {
  seconds: number;
  rps: number;
  p99: number;
  non2xx: number;
  /** Resident memory of the app's process tree, MB, at the start and every 30 s after. */
  rssMb: number[];
  maxMb: number;
  /** Growth from the first minute's mean to the last minute's mean, % (flat: within a few %). */
  growthPct: number;
}

/**
 * `npm run bench -- --soak <s>` (issue 22 item 4): drives `spec` (reads cycling over `paths`) for
 * `seconds` and samples `rss()` (bytes) every 30 s, so a leak shows as a climbing series rather than a
 * peak. Writes bench/soak-<database>.json and returns the figures.
 */
export async function soak(opts: {
  spec: LoadSpec;
  seconds: number;
  drive: (s: LoadSpec) => Promise<LoadFigures>;
  rss: () => number;
  database: string;
  log: (m: string) => void;
}): Promise<SoakFigures> {
  const mb = () => Math.round(opts.rss() / 2 ** 20);
  const samples = [mb()];
  opts.log(`soak: ${opts.spec.name} for ${opts.seconds} s; RSS ${samples[0]} MB at the start`);
  const timer = setInterval(() => {
    samples.push(mb());
    opts.log(`  soak RSS ${samples[samples.length - 1]} MB after ${(samples.length - 1) * 30} s`);
  }, 30_000);
  const r = await opts.drive({ ...opts.spec, durationS: opts.seconds, warmupS: 0 });
  clearInterval(timer);
  samples.push(mb());
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const first = mean(samples.slice(0, 3));
  const last = mean(samples.slice(-3));
  const figures: SoakFigures = {
    seconds: opts.seconds,
    rps: r.rps,
    p99: r.p99,
    non2xx: r.non2xx,
    rssMb: samples,
    maxMb: Math.max(...samples),
    growthPct: first ? ((last - first) / first) * 100 : 0,
  };
  opts.log(
    `soak: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, non-2xx ${r.non2xx}; RSS max ${figures.maxMb} MB, first to last minute ${figures.growthPct.toFixed(1)}%`,
  );
  writeFileSync(
    path.join(import.meta.dirname, `soak-${opts.database}.json`),
    `${JSON.stringify({ date: new Date().toISOString(), spec: opts.spec.name, ...figures }, null, 2)}\n`,
  );
  return figures;
}
