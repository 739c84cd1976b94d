import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

// Docs that work (issue 68 item 2): the shell blocks of a tour page run as written against a fresh demo,
// and every HTTP answer is checked. The convention is written for authors in docs/architecture.md "Docs
// that work"; e2e/docs/tours.spec.ts runs every tour in CI.

/** The demo's address as the guides write it; the runner puts the address of the demo under test instead. */
export const DOCUMENTED_ORIGIN = "http://localhost:3000";

/** One command of a tour: complete shell text, where it is in the page, and the status its comment names. */
export interface TourCommand {
  /** 1-based line of the page where the command starts. */
  line: number;
  /** The command as written, possibly over several lines (`\` continuations, pipes, open quotes). */
  text: string;
  /** The status every curl call of the command must answer (`# 404 ...` ending its last line), else null: 2xx. */
  expect: number | null;
}

/** A page whose `sh` blocks a test runs. */
export interface TourPage {
  /** The page, relative to the repository root (`docs/api-tour.md`, `README.md`). */
  file: string;
  /** Variables the page's demo is started with (`<!-- tour env: NAME=value ... -->`). */
  env: Record<string, string>;
  /** Its commands, in page order, from every ```` ```sh ```` block not marked `no-tour`. */
  commands: TourCommand[];
}

const MARKER = /^<!-- tour(?: env:((?:\s+[A-Z][A-Z0-9_]*=\S+)+))? -->$/m;
/** Any line that starts a tour marker, well formed or not (a page holds one). */
const MARKERS = /^<!-- tour\b.*$/gm;

/**
 * Reads a page as a tour, or null when it does not hold the `<!-- tour -->` marker.
 * @throws Error for a malformed block (an unclosed fence or quote), naming the page and line, and for a
 *   page with more than one marker (a second one's variables would be silently ignored)
 */
export function parseTour(file: string, markdown: string): TourPage | null {
  const marker = MARKER.exec(markdown);
  if (!marker) return null;
  const markers = markdown.match(MARKERS) ?? [];
  if (markers.length > 1) {
    throw new Error(`${file}: ${markers.length} tour markers (${markers.join(", ")}); a page holds one`);
  }
  const env: Record<string, string> = {};
  for (const pair of (marker[1] ?? "").trim().split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf("=");
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const commands: TourCommand[] = [];
  for (const block of shBlocks(file, markdown)) commands.push(...splitCommands(file, block.code, block.line));
  return { file, env, commands };
}

/** The ```` ```sh ```` blocks of a page to run (not `no-tour`), each with the page line of its first code line. */
export function shBlocks(file: string, markdown: string): { line: number; code: string }[] {
  const lines = markdown.split("\n");
  const blocks: { line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const words = open[2]!.trim().split(/\s+/);
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence) && l.slice(fence.length).trim() === "");
    if (end < 0) throw new Error(`${file}:${i + 1}: the code block is not closed`);
    if (words[0] === "sh" && !words.includes("no-tour"))
      blocks.push({ line: i + 2, code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

/**
 * Splits a block into complete commands the way `sh` reads them: a line ends a command unless it is
 * continued (a trailing `\`, `|`, `&&` or `||`, an open quote or an open parenthesis). A `#` that starts a
 * word outside quotes begins a comment to the end of its line; lines holding only a comment are no
 * command. A status at the start of the comment on the command's last line is its expectation.
 * @param firstLine the page line of the block's first line
 * @throws Error when the block ends inside a quote or a continuation
 */
export function splitCommands(file: string, code: string, firstLine: number): TourCommand[] {
  const lines = code.split("\n");
  const commands: TourCommand[] = [];
  let single = false;
  let double = false;
  let depth = 0;
  let start = -1;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    let codePart = line;
    let comment = "";
    let continued = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (single) {
        if (c === "'") single = false;
        continue;
      }
      if (c === "\\") {
        if (i === line.length - 1) continued = true;
        i++;
        continue;
      }
      if (double) {
        if (c === '"') double = false;
        continue;
      }
      if (c === "'") single = true;
      else if (c === '"') double = true;
      else if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (c === "#" && (i === 0 || /[\s;&|(]/.test(line[i - 1]!))) {
        codePart = line.slice(0, i);
        comment = line.slice(i);
        break;
      }
    }
    const trimmed = codePart.trimEnd();
    if (start < 0) {
      if (trimmed.trim() === "") continue; // blank or comment only
      start = n;
    }
    if (continued || single || double || depth > 0 || /(\||&&)$/.test(trimmed)) continue;
    const status = /^#\s*([1-5]\d\d)\b/.exec(comment);
    commands.push({
      line: firstLine + start,
      text: lines.slice(start, n + 1).join("\n"),
      expect: status ? Number(status[1]) : null,
    });
    start = -1;
  }
  if (start >= 0 || single || double || depth !== 0)
    throw new Error(`${file}:${firstLine + Math.max(start, 0)}: the block ends inside a command (quote, \\ or pipe)`);
  return commands;
}

/** Every tour of the repository: README.md and docs/*.md holding the marker. */
export function findTourPages(root: string): TourPage[] {
  const files = ["README.md", ...readdirSync(path.join(root, "docs")).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith(".md"),
  );
  return files
    .map((f) => parseTour(f, readFileSync(path.join(root, f), "utf8")))
    .filter((p): p is TourPage => p !== null);
}

/**
 * The `sh` script of a tour: each command as written (with {@link DOCUMENTED_ORIGIN} replaced by
 * `origin`), after a line that exports its page line and expectation for the curl wrapper.
 */
export function tourScript(page: TourPage, origin: string): string {
  const parts = ["set -e"];
  for (const c of page.commands) {
    parts.push(`TOUR_LINE=${c.line}; TOUR_EXPECT=${c.expect ?? ""}; export TOUR_LINE TOUR_EXPECT`);
    parts.push(c.text.split(DOCUMENTED_ORIGIN).join(origin));
  }
  return `${parts.join("\n")}\n`;
}

/**
 * The `curl` the tour finds first on its PATH: the real one with `-D` to a file of its own (so what the
 * reader sees on stdout is unchanged), then one line for the runner: page line, expectation, the last
 * status line's code (000 when there was no answer) and curl's exit code.
 */
function curlWrapper(realCurl: string): string {
  return `#!/bin/sh
h=$(mktemp) || exit 99
"${realCurl}" -D "$h" "$@"
rc=$?
status=$(sed -n 's/^HTTP\\/[0-9.]* \\([0-9][0-9][0-9]\\).*/\\1/p' "$h" | tail -n 1)
printf '%s\\t%s\\t%s\\t%s\\n' "\${TOUR_LINE:-?}" "\${TOUR_EXPECT:-}" "\${status:-000}" "$rc" >> "$TOUR_LOG"
rm -f "$h"
exit $rc
`;
}

/** The real curl on this machine's PATH. */
function findCurl(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "curl");
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error("curl is not installed: the tours are curl commands");
}

/** What a tour's run found. */
export interface TourResult {
  /** One line per problem, `<file>:<line>: ...`; empty when the page works as written. */
  failures: string[];
  /** HTTP calls curl made. */
  calls: number;
  /** The shell's exit code. */
  exitCode: number;
  /** The end of what the commands printed (stdout and stderr), for a failure's message. */
  output: string;
}

/**
 * Runs a tour's commands in one `sh` session in `cwd` (whose `.data/demo.json` is the demo's) against
 * the demo at `origin`, and judges every curl call: 2xx, or exactly the status its command's comment
 * names; a command with a status comment must make a call; and the shell must finish without error.
 * @param env the session's environment (PGLITE_DIR of the demo, so `npm run admin` reaches it)
 * @param timeoutMs the shell is killed after this long (a failure)
 */
export async function runTour(
  page: TourPage,
  opts: { origin: string; cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<TourResult> {
  const work = path.join(opts.cwd, ".tour");
  mkdirSync(work, { recursive: true });
  const bin = path.join(work, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "curl"), curlWrapper(findCurl()));
  chmodSync(path.join(bin, "curl"), 0o755);
  const log = path.join(work, "calls.tsv");
  writeFileSync(log, "");
  const script = path.join(work, "tour.sh");
  writeFileSync(script, tourScript(page, opts.origin));

  const child = spawn("sh", [script], {
    cwd: opts.cwd,
    env: { ...opts.env, PATH: `${bin}${path.delimiter}${opts.env.PATH ?? ""}`, TOUR_LOG: log },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-6000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 150_000);
  const exitCode = await new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  clearTimeout(timer);

  const failures: string[] = [];
  const calls = readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [line, expect, status, rc] = l.split("\t");
      return { line: Number(line), expect: expect ? Number(expect) : null, status: Number(status), rc: Number(rc) };
    });
  for (const c of calls) {
    const ok = c.expect === null ? c.status >= 200 && c.status < 300 : c.status === c.expect;
    if (!ok)
      failures.push(
        `${page.file}:${c.line}: curl got ${c.status === 0 ? `no answer (curl exit ${c.rc})` : c.status}, ` +
          `the page expects ${c.expect ?? "a 2xx"}`,
      );
  }
  for (const cmd of page.commands)
    if (cmd.expect !== null && !calls.some((c) => c.line === cmd.line))
      failures.push(`${page.file}:${cmd.line}: the comment names ${cmd.expect}, but the command made no HTTP call`);
  if (exitCode !== 0) {
    const last = calls.at(-1);
    failures.push(
      `${page.file}: the shell stopped with exit code ${exitCode}` +
        (last ? ` after the call of line ${last.line}` : " before any call"),
    );
  }
  return { failures, calls: calls.length, exitCode, output };
}
