import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Thrown when another live process holds an embedded database directory ({@link lockDirectory}). */
export class DirectoryInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dir} is open in another process (pid ${pid}); PGlite allows one opener per ` +
        "directory, and two would overwrite each other's changes. Stop that process (a running app or demo) " +
        "first, or leave it running: `npm run admin` and the other scripts reach its database through its socket. " +
        `If no process of yours has it open (its pid now belongs to something else), delete ${lockFile(dir)}.`,
    );
    this.name = "DirectoryInUseError";
  }
}

/** The lock file of an embedded database directory: `<dir>.lock`, beside it (a copy of the directory has none). */
export function lockFile(dir: string): string {
  return `${path.resolve(dir)}.lock`;
}

/** Lock files this process holds: a second open here is refused without asking the file. */
const held = new Set<string>();

/**
 * Takes an embedded (PGlite) database directory for this process: creates {@link lockFile} holding its pid,
 * exclusively. A lock left by a process that is gone (killed, crashed) is taken over.
 *
 * Why: PGlite keeps the database in the opener's memory and writes it back to the directory, so a second
 * opener (a second `npm run demo` while one runs, a script opening the directory beside the app) would each
 * write over the other, and the app would not see the other's changes (a wallet blocked through it stayed
 * open in the app). PostgreSQL's own guard, `postmaster.pid`, is not PGlite's. A lock naming this process's own
 * pid that this process does not hold is stale too: a container restarted gives its app the pid it had before.
 * @param dir the database directory
 * @returns a function that removes the lock (once; also removed when the process exits normally)
 * @throws DirectoryInUseError when a live process, this one included, holds the directory
 */
export function lockDirectory(dir: string): () => void {
  const file = lockFile(dir);
  if (held.has(file)) throw new DirectoryInUseError(dir, process.pid);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw err;
      const pid = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid))
        throw new DirectoryInUseError(dir, pid);
      rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    process.off("exit", release);
    rmSync(file, { force: true });
  };
  process.on("exit", release);
  return release;
}

/** Whether a process with this pid exists (signal 0 checks without sending; EPERM: it exists, not ours). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
