// Starts Stoplight Prism as a validating proxy in front of the app under test, on the document the app
// serves: `prism proxy <document> http://localhost:<app>/api/public/v1 --errors`. Run by Playwright as a
// web server when E2E_PRISM=1 (playwright.config.ts); nothing is fetched from the network.
//
// With --errors Prism answers by itself instead of the app when it finds a violation: 422 (or 401) for a
// request the document refuses, without forwarding it, and 500 `VIOLATIONS` for an answer outside the
// document. The API fixture (e2e/api/validated-request.ts) turns each into a failed test or, for a
// refused request, sends it to the app directly to learn whether the app accepts it.
//
// Prism's whole log goes to .data/e2e/prism/prism.log. Lines about answer violations and Prism's own
// failures are repeated on stderr (they show in the CI output); its refusals of requests stay in the log,
// since the refusal tests send bad requests on purpose and the fixture judges each one.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { APP_PORT, PRISM_DIR, PRISM_PORT } from "./settings";

const APP = `http://localhost:${APP_PORT}`;
const DOCUMENT_URL = `${APP}/api/public/v1/openapi.json`;

async function servedDocument(): Promise<string> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      const res = await fetch(DOCUMENT_URL);
      if (res.ok) return await res.text();
    } catch {
      // the app is still starting
    }
    if (Date.now() > deadline) throw new Error(`${DOCUMENT_URL} did not answer within 180 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<void> {
  mkdirSync(PRISM_DIR, { recursive: true });
  const document = path.join(PRISM_DIR, "openapi.json");
  writeFileSync(document, await servedDocument());
  const log = createWriteStream(path.join(PRISM_DIR, "prism.log"));
  const bin = path.resolve("node_modules/.bin/prism");
  // --cors=false: Prism would otherwise add CORS headers of its own to every answer and answer
  // preflights itself; the answers should be the app's.
  const args = [
    "proxy",
    document,
    `${APP}/api/public/v1`,
    "--errors",
    "--cors=false",
    "--host",
    "127.0.0.1",
    "--port",
    String(PRISM_PORT),
  ];
  const prism = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  const relay = (chunk: Buffer) => {
    log.write(chunk);
    for (const line of chunk.toString().split("\n")) {
      if (/Violation|VIOLATIONS|fatal|UPSTREAM|Error:/.test(line)) process.stderr.write(`[prism] ${line.trim()}\n`);
    }
  };
  prism.stdout.on("data", relay);
  prism.stderr.on("data", relay);
  const stop = () => prism.kill("SIGTERM");
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  prism.on("exit", (code, signal) => {
    log.end();
    if (signal !== "SIGTERM")
      process.stderr.write(`[prism] exited with ${code ?? signal}; its log is ${PRISM_DIR}/prism.log\n`);
    process.exit(code ?? 0);
  });
}

main().catch((err: Error) => {
  process.stderr.write(`[prism] ${err.message}\n`);
  process.exit(1);
});
