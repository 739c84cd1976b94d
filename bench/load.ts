import autocannon from "autocannon";
import { countVerdicts, intakeBody, intakePieces, type IntakeCounts } from "./intake-load";

/** One load scenario, as the orchestrator passes it (JSON in argv[2]). */
export interface LoadSpec {
  name: string;
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** POST /cards: each request gets a new Idempotency-Key and card code. */
  newCardEachRequest?: boolean;
  /** POST /conversations/{id}/messages: each request gets a new Idempotency-Key and message text. */
  newMessageEachRequest?: boolean;
  /**
   * POST /intake/events: each request a new batch of 100 events, a tenth duplicates, and the answers'
   * verdicts counted (bench/intake-load.ts).
   */
  intake?: boolean;
  /** Paths cycled through, one per request (cursor walks). */
  paths?: string[];
  connections: number;
  durationS: number;
  warmupS: number;
}

// Runs in its own process so the load generator never competes with the server's event loop.
const spec = JSON.parse(process.argv[2]) as LoadSpec;
let n = 0;
// The intake row: a new id prefix for each run (the warm-up's ids are not the measured run's duplicates).
const pieces = spec.intake ? intakePieces(new Date(Date.now() - 3_600_000).toISOString()) : [];
let prefix = "";
let batch = 0;
let counts: IntakeCounts = { accepted: 0, duplicate: 0, rejected: 0 };
const run = (duration: number) => {
  prefix = `${process.pid}-${Date.now()}`;
  batch = 0;
  counts = { accepted: 0, duplicate: 0, rejected: 0 };
  return autocannon({
    url: spec.url,
    connections: spec.connections,
    duration,
    method: spec.method ?? "GET",
    headers: spec.headers,
    requests: [
      {
        setupRequest: (req) => {
          n++;
          if (spec.intake) return { ...req, body: intakeBody(pieces, prefix, ++batch) };
          if (spec.paths) return { ...req, path: spec.paths[n % spec.paths.length] };
          if (spec.newCardEachRequest) {
            const code = `b-${process.pid}-${n}`;
            return {
              ...req,
              headers: { ...req.headers, "idempotency-key": `${process.pid}-${n}-${Date.now()}` },
              body: JSON.stringify({ code, name: "Bench card", price_text: "100 ₽" }),
            };
          }
          if (spec.newMessageEachRequest)
            return {
              ...req,
              headers: { ...req.headers, "idempotency-key": `${process.pid}-${n}-${Date.now()}` },
              body: JSON.stringify({ content: `question ${process.pid}-${n}: warm socks or a rain jacket?` }),
            };
          return req;
        },
        ...(spec.intake ? { onResponse: (_status: number, body: string) => countVerdicts(body, counts) } : {}),
      },
    ],
  });
};
if (spec.warmupS > 0) await run(spec.warmupS);
const r = await run(spec.durationS);
const non2xx = r.non2xx + r.errors + r.timeouts;
console.log(
  JSON.stringify({
    name: spec.name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx,
    statusCodes: r.statusCodeStats,
    ...(spec.intake ? { intake: counts } : {}),
  }),
);
