import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Runs the operator CLI (`npm run admin -- <args> --json`) on the e2e run's embedded database and
 * resolves with its output; a non-zero exit rejects with the CLI's stdout in the message.
 */
export function operatorCli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run("npx", ["tsx", "scripts/admin.ts", ...args, "--json"], {
    env: { ...process.env, PGLITE_DIR: ".data/e2e/pglite", DATABASE_URL: "" },
  }).catch((err: { message: string; stdout?: string }) => {
    throw new Error(`${err.message}\nstdout: ${err.stdout ?? ""}`);
  });
}
