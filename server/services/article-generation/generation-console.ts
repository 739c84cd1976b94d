import { and, desc, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistTopics } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { hasErrorCode } from "@/server/lib/error-codes";
import type { CreateGenerationJob } from "@/server/schemas/article-generation";
import type { Operation } from "@/server/schemas/operations";
import type { StaffActor } from "../actor";
import { afterCommit } from "../events/work-notifier";
import { tenantPaidConcurrency } from "../limits/limit-overrides";
import { ownedBy, type Owner } from "../tenant-scope";
import { createGenerationJob, findConsoleJob } from "./generation-jobs";

/**
 * The console's "Generate article" (issue 72 item 5): the API's order (createGenerationJob) for a staff
 * member in the console's mode, paid from that mode's wallet under the tenant's paid concurrency. The
 * click's `consoleKey` (a UUID the page makes per confirmed click) makes a repeat answer the first order
 * and charge nothing: a sequential repeat finds the job; a racing one loses on the unique index or is
 * refused for what the first did (its transaction, hold included, rolls back), and answers the first's job. The engine is woken after the
 * commit.
 * @throws ApiError as createGenerationJob (409 `editorial_profile_required`, 404, 409 `invalid_state`,
 *   402, 503).
 */
export async function consoleGenerateArticle(
  db: Db,
  actor: StaffActor,
  body: CreateGenerationJob,
  consoleKey: string,
): Promise<{ operation: Operation; jobId: string }> {
  const again = await findConsoleJob(db, actor, consoleKey);
  if (again) return again;
  const paid_concurrency = await tenantPaidConcurrency(db, actor.tenantId);
  try {
    return await afterCommit(() =>
      db.transaction((tx) =>
        createGenerationJob(tx as unknown as Db, actor, body, { paidConcurrency: paid_concurrency, consoleKey }),
      ),
    );
  } catch (err) {
    // A repeat that raced the first click lost on the unique index (23505), or was refused for what the
    // first one did meanwhile (its topic is `generating`, its slot or money taken): either way the first
    // click's job, when it committed, is the answer.
    const won =
      hasErrorCode(err, "23505") || err instanceof ApiError ? await findConsoleJob(db, actor, consoleKey) : null;
    if (won) return won;
    throw err;
  }
}

/** The topics an article can be ordered from (`proposed` or `approved`), best trend first, at most 100. */
export async function orderableTopics(
  db: Db,
  owner: Owner,
): Promise<{ id: string; title: string | null; status: string }[]> {
  return db
    .select({ id: strategistTopics.id, title: strategistTopics.title, status: strategistTopics.status })
    .from(strategistTopics)
    .where(and(ownedBy(strategistTopics, owner), inArray(strategistTopics.status, ["proposed", "approved"])))
    .orderBy(sql`${strategistTopics.trendScore} desc nulls last`, desc(strategistTopics.id))
    .limit(100);
}
