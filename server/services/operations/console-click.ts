import type { Db } from "@/db/client";
import { ApiError } from "@/server/errors";
import { hasErrorCode } from "@/server/lib/error-codes";
import { afterCommit } from "../events/work-notifier";

/**
 * A console click that starts paid work, answered once per click key (the console's "Generate article" and
 * the Strategist chat's Send): `find()` looks for what a click with this key already made; without it,
 * `create(tx)` runs in a transaction of its own and the engine is woken after the commit. A repeat that
 * raced the first click lost on the key's unique index (23505), or was refused for what the first one did
 * meanwhile (an ApiError: its slot, its money, a turn running): either way the first click's result, once
 * committed, is the answer and nothing is charged twice.
 * @returns what the click made, or what the first click with this key made
 * @throws what `create` throws when no click with this key made anything
 */
export async function answerClickOnce<T>(
  db: Db,
  find: () => Promise<T | null>,
  create: (tx: Db) => Promise<T>,
): Promise<T> {
  const again = await find();
  if (again) return again;
  try {
    return await afterCommit(() => db.transaction((tx) => create(tx as unknown as Db)));
  } catch (err) {
    const won = hasErrorCode(err, "23505") || err instanceof ApiError ? await find() : null;
    if (won) return won;
    throw err;
  }
}
