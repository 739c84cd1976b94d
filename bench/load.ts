import autocannon from "autocannon";

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
  /** Paths cycled through, one per request (cursor walks). */
  paths?: string[];
  connections: number;
  durationS: number;
  warmupS: number;
}

// Runs in its own process so the load generator never competes with the server's event loop.
const spec = JSON.parse(process.argv[2]) as LoadSpec;
let n = 0;
const run = (duration: number) =>
  autocannon({
    url: spec.url,
    connections: spec.connections,
    duration,
    method: spec.method ?? "GET",
    headers: spec.headers,
    requests: [
      {
        setupRequest: (req) => {
          n++;
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
      },
    ],
  });
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
  }),
);
