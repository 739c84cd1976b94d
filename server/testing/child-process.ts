import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

/**
 * Starts `node --import tsx <script> ...args` (a test's API or worker process) and resolves with it and the
 * match once its stdout (all of it so far) matches `ready`; rejects when it exits first. Its stderr goes
 * to the test's.
 */
function startUntil(
  script: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
}

/** {@link startUntil} with a plain text: resolves with the process once it has printed `readyText`. */
export async function startTsxProcess(script: string, args: string[], readyText: string): Promise<ChildProcess> {
  const escaped = readyText.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return (await startUntil(script, args, new RegExp(escaped))).child;
}

/**
 * Starts the public API alone in a child process (server/testing/api-process.ts) on a port the system
 * picks, and resolves with the process and that port once it serves. A port chosen by the test could be
 * taken meanwhile by any outgoing connection's ephemeral port (CI failed once with EADDRINUSE).
 * `extraArgs` go after the port (`--no-key-cache`).
 */
export async function startApiProcess(
  databaseUrl: string,
  extraArgs: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const { child, match } = await startUntil(
    "server/testing/api-process.ts",
    [databaseUrl, "0", ...extraArgs],
    /listening (\d+)/,
  );
  return { child, port: Number(match[1]) };
}

/** SIGKILLs a child process (if still running) and waits until it has exited. */
export async function killProcess(child: ChildProcess | null | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
