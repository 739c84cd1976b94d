import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

/**
 * Starts `node --import tsx <script> ...args` (a test's API or worker process) and resolves once it has
 * printed `readyText` on stdout; rejects when it exits first. Its stderr goes to the test's.
 */
export function startTsxProcess(script: string, args: string[], readyText: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes(readyText) && resolve(child));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
}

/**
 * Starts the public API alone in a child process (server/testing/api-process.ts) on a port the system
 * picks, and resolves with the process and that port once it serves. A port chosen by the test could be
 * taken meanwhile by any outgoing connection's ephemeral port (CI failed once with EADDRINUSE).
 * `extraArgs` go after the port (`--no-key-cache`).
 */
export function startApiProcess(
  databaseUrl: string,
  extraArgs: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const script = "server/testing/api-process.ts";
  const child = spawn(process.execPath, ["--import", "tsx", script, databaseUrl, "0", ...extraArgs], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
}

/** SIGKILLs a child process (if still running) and waits until it has exited. */
export async function killProcess(child: ChildProcess | null | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
