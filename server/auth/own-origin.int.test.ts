import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// Issue 76 item 5: the console opened at 127.0.0.1:PORT (configured origin http://localhost:PORT) can
// sign out, and another site cannot sign anyone out. The sign-in library checks the origin of a request
// carrying a session cookie against its trusted origins, but skips that check under test (NODE_ENV=test
// or TEST), so the sign-outs run in a child process without them (server/testing/auth-origin-process.ts).

function signOuts(configured: string, host: string, origins: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "development" };
  delete env.TEST;
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", "server/testing/auth-origin-process.ts", configured, host, ...origins],
    { env, encoding: "utf8", timeout: 120_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  const out = JSON.parse(run.stdout.trim().split("\n").pop()!) as {
    nodeEnv: string;
    results: { origin: string; status: number; sessionAfter: boolean }[];
  };
  expect(out.nodeEnv).toBe("development");
  return Object.fromEntries(out.results.map((r) => [r.origin, [r.status, r.sessionAfter]]));
}

describe("sign-out from the page's own origin (the sign-in library's origin check)", () => {
  it("is accepted from the page opened at 127.0.0.1:PORT and from the configured origin, refused from any other", () => {
    expect(
      signOuts("http://localhost:3500", "127.0.0.1:3500", [
        "http://127.0.0.1:3500",
        "http://localhost:3500",
        "https://evil.example",
        "http://127.0.0.1:3501",
        "null",
      ]),
    ).toEqual({
      "http://127.0.0.1:3500": [200, false],
      "http://localhost:3500": [200, false],
      "https://evil.example": [403, true],
      "http://127.0.0.1:3501": [403, true],
      null: [403, true],
    });
  }, 120_000);
});
