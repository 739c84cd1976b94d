import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * How the receiver answers the next requests:
 * - `status`: that status (2xx/3xx/4xx/5xx; a 3xx carries `Location`), small body, plus `headers` if given
 *   (e.g. `Retry-After`);
 * - `hang`: never answers (until the receiver stops);
 * - `slow`: waits `delayMs`, then answers `status`;
 * - `reset`: destroys the connection without answering;
 * - `huge`: 200 with a body of `bytes` (default 10 MB), written with back-pressure;
 * - `answer`: that status with exactly these headers and this body (the attempt log's tests).
 */
export type ReceiverBehaviour =
  | { kind: "status"; status: number; headers?: Record<string, string> }
  | { kind: "hang" }
  | { kind: "slow"; delayMs: number; status: number }
  | { kind: "reset" }
  | { kind: "huge"; bytes?: number }
  | { kind: "answer"; status: number; headers?: Record<string, string>; body?: string | Buffer };

/** One request the receiver got: lower-case headers, the raw body as text, when it arrived. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: Date;
}

/** A running local HTTPS receiver (tests only). */
export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>/hook`. */
  url: string;
  port: number;
  /** PEM of the self-signed certificate (CN localhost, SAN localhost and 127.0.0.1): the CA to trust. */
  certPem: string;
  requests: ReceivedRequest[];
  /** For `huge` answers: bytes the receiver managed to write before the client went away, and whether it finished. */
  hugeWrites: { written: number; finished: boolean }[];
  respond(b: ReceiverBehaviour): void;
  stop(): Promise<void>;
}

let cached: { key: string; cert: string } | null = null;

/** A throw-away self-signed EC certificate for localhost / 127.0.0.1, made once per process with openssl. */
function selfSignedCert(): { key: string; cert: string } {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(tmpdir(), "receiver-"));
  try {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    cached = { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The environment under which deliveries may reach a receiver on this machine: loopback addresses
 * allowed as an operator would allow a private network (`WEBHOOK_ALLOW_PRIVATE_CIDRS`), and the test
 * setting that admits a loopback IP literal and a port other than 443 (`WEBHOOK_ALLOW_LOOPBACK`).
 */
export const LOOPBACK_RECEIVER_ENV = {
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_ALLOW_PRIVATE_CIDRS: "127.0.0.0/8,::1/128",
} as const;

/**
 * Starts an HTTPS receiver on 127.0.0.1 (a free port) that records every request and answers as told
 * ({@link ReceiverBehaviour}; default 200). Webhook delivery tests point subscriptions at it with
 * {@link LOOPBACK_RECEIVER_ENV} and trust `certPem` through the delivery client's test CA option.
 */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const { key, cert } = selfSignedCert();
  let behaviour: ReceiverBehaviour = { kind: "status", status: 200 };
  const requests: ReceivedRequest[] = [];
  const hugeWrites: HttpsReceiver["hugeWrites"] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: new Date(),
      });
      const b = behaviour;
      const answer = (status: number, headers: Record<string, string> = {}) => {
        const extra = status >= 300 && status < 400 ? { Location: "https://127.0.0.1:1/elsewhere" } : {};
        res.writeHead(status, { "Content-Type": "text/plain", ...extra, ...headers });
        res.end("answer");
      };
      res.on("error", () => {});
      switch (b.kind) {
        case "status":
          return answer(b.status, b.headers);
        case "hang":
          return;
        case "slow": {
          const t = setTimeout(() => {
            timers.delete(t);
            if (!res.destroyed) answer(b.status);
          }, b.delayMs);
          timers.add(t);
          return;
        }
        case "reset":
          return req.socket.destroy();
        case "huge": {
          const total = b.bytes ?? 10 * 1024 * 1024;
          const record = { written: 0, finished: false };
          hugeWrites.push(record);
          const chunk = Buffer.alloc(64 * 1024, 120);
          res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(total) });
          const pump = () => {
            while (record.written < total && !res.destroyed) {
              const n = Math.min(chunk.length, total - record.written);
              record.written += n;
              if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once("drain", pump);
            }
            if (record.written >= total && !res.destroyed) res.end(() => (record.finished = true));
          };
          pump();
          return;
        }
        case "answer":
          res.writeHead(b.status, b.headers ?? {});
          return void res.end(b.body ?? "");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    certPem: cert,
    requests,
    hugeWrites,
    respond(b) {
      behaviour = b;
    },
    async stop() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
