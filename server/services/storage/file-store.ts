import { readFile } from "node:fs/promises";
import path from "node:path";

let root = path.resolve(".data", "storage");

/**
 * The platform's file storage: a directory (`.data/storage` under the working directory), holding files
 * by their `storage_path` (`<tenant id>/attachments/<name>`). Tests point it elsewhere.
 */
export function setStorageRoot(dir: string): void {
  root = path.resolve(dir);
}

/** The absolute path of a stored file, or null when `storagePath` would leave the storage directory. */
export function storedFilePath(storagePath: string): string | null {
  const full = path.resolve(root, storagePath);
  return full.startsWith(root + path.sep) ? full : null;
}

/** Reads a stored file; null when it is missing or its path is not inside the storage directory. */
export async function readStoredFile(storagePath: string): Promise<Buffer | null> {
  const full = storedFilePath(storagePath);
  if (!full) return null;
  try {
    return await readFile(full);
  } catch {
    return null;
  }
}
