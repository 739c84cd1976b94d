import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTourPages, parseTour, runTour, splitCommands, type TourPage } from "./doc-tours";

// The runner of the guides' tours (issue 68 item 2, docs/architecture.md "Docs that work"): how it reads a
// page's commands and their expected statuses, and that a run fails on an answer the page does not expect.

describe("splitCommands", () => {
  it("reads complete commands, their first line and the status their comment names", () => {
    const code = [
      "BASE=http://localhost:3000/api/public/v1",
      "# a comment line, no command: 404",
      "curl -s $BASE/me                     # 401 invalid_api_key",
      "curl -s -X POST $BASE/cards -H 'A: #1' \\",
      '  -d "{\\"a\\":\\"b # c\\"}"   # 422 three errors',
      "X=$(curl -s $BASE/cards |",
      "  node -p 'JSON.parse(require(\"fs\").readFileSync(0)).next_cursor')",
      'echo "$X"   # the customer\'s answer, 200 of them',
      "field() { node -e 'console.log(1)",
      '  \' "$1"; }',
    ].join("\n");
    expect(splitCommands("p.md", code, 10)).toEqual([
      { line: 10, text: "BASE=http://localhost:3000/api/public/v1", expect: null },
      { line: 12, text: "curl -s $BASE/me                     # 401 invalid_api_key", expect: 401 },
      { line: 13, text: expect.stringContaining("422 three errors"), expect: 422 },
      { line: 15, text: expect.stringContaining("next_cursor"), expect: null },
      { line: 17, text: expect.stringContaining("echo"), expect: null },
      { line: 18, text: expect.stringContaining("field()"), expect: null },
    ]);
  });

  it("refuses a block that ends inside a command", () => {
    expect(() => splitCommands("p.md", "curl -s 'x", 3)).toThrow(/p\.md:3/);
    expect(() => splitCommands("p.md", "curl -s x \\", 3)).toThrow(/ends inside a command/);
  });
});

describe("parseTour", () => {
  it("takes the sh blocks of a marked page, with its demo's variables, and skips no-tour blocks", () => {
    const page = parseTour(
      "docs/x.md",
      [
        "# X",
        "<!-- tour env: A=1 B=x,y -->",
        "```sh no-tour",
        "npm run demo",
        "```",
        "```ts",
        "const a = 1;",
        "```",
        "```sh",
        "curl -s $BASE/me   # 401",
        "```",
      ].join("\n"),
    );
    expect(page).toEqual({
      file: "docs/x.md",
      env: { A: "1", B: "x,y" },
      commands: [{ line: 10, text: "curl -s $BASE/me   # 401", expect: 401 }],
    });
    expect(parseTour("docs/y.md", "# Y\n```sh\ncurl -s x\n```\n")).toBeNull();
  });

  it("refuses a page with two markers, whose second one's variables would be lost", () => {
    expect(() => parseTour("docs/z.md", "<!-- tour -->\n<!-- tour env: A=1 -->\n```sh\ncurl -s x\n```\n")).toThrow(
      "docs/z.md: 2 tour markers",
    );
  });

  it("finds the repository's tours: the README, the API tour, webhooks, the AI seller and payments", () => {
    const files = findTourPages(process.cwd()).map((p) => p.file);
    expect(files).toEqual(
      expect.arrayContaining([
        "README.md",
        "docs/api-tour.md",
        "docs/webhooks.md",
        "docs/ai-seller.md",
        "docs/payments.md",
      ]),
    );
  });
});

describe("runTour", () => {
  let server: Server;
  let origin: string;
  let dir: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const status = Number(/^\/status\/(\d{3})$/.exec(req.url ?? "")?.[1] ?? 200);
      res.writeHead(status, { "content-type": "text/plain" }).end(`answer ${status}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(path.join(tmpdir(), "tour-"));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const tour = (...lines: string[]): TourPage => ({
    file: "docs/t.md",
    env: {},
    commands: splitCommands("docs/t.md", lines.join("\n"), 1),
  });
  const run = (page: TourPage) => runTour(page, { origin, cwd: dir, env: process.env, timeoutMs: 20_000 });

  it("passes a page whose answers are 2xx or the status its comments name, and shows the reader curl's own output", async () => {
    const r = await run(
      tour(
        "BASE=http://localhost:3000",
        "curl -s $BASE/status/200",
        "curl -s -o /dev/null -w '%{http_code}\\n' $BASE/status/204   # 204",
        "curl -s $BASE/status/404   # 404 not_found",
        "curl -s -i $BASE/status/405 | grep -i '^content-type'   # 405 method_not_allowed",
      ),
    );
    expect(r.failures).toEqual([]);
    expect(r.calls).toBe(4);
    expect(r.output).toContain("answer 200");
    expect(r.output).toContain("204\n");
    expect(r.output).not.toMatch(/^HTTP\/1\.1 200/m); // -D goes to the runner's file, not to the reader
  });

  it("fails on a non-2xx answer the page does not expect, naming its line", async () => {
    const r = await run(tour("curl -s http://localhost:3000/status/200", "curl -s http://localhost:3000/status/500"));
    expect(r.failures).toEqual(["docs/t.md:2: curl got 500, the page expects a 2xx"]);
  });

  it("fails when the answer is not the status the comment names, or when there is no call to check", async () => {
    const r = await run(tour("curl -s http://localhost:3000/status/200   # 404", "echo done   # 201 created"));
    expect(r.failures).toEqual([
      "docs/t.md:1: curl got 200, the page expects 404",
      "docs/t.md:2: the comment names 201, but the command made no HTTP call",
    ]);
  });

  it("fails when a command fails or nothing answers", async () => {
    const r = await run(tour("curl -s http://localhost:3000/status/200", "false", "curl -s http://localhost:3000/"));
    expect(r.exitCode).not.toBe(0);
    expect(r.failures).toEqual(["docs/t.md: the shell stopped with exit code 1 after the call of line 1"]);
    const down = await runTour(tour("curl -s http://localhost:3000/"), {
      origin: "http://127.0.0.1:9",
      cwd: dir,
      env: process.env,
    });
    expect(down.failures[0]).toBe("docs/t.md:1: curl got no answer (curl exit 7), the page expects a 2xx");
  });
});
