import { and, desc, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistTopics } from "@/db/schema";
import type { CreateGenerationJob } from "@/server/schemas/article-generation";
import type { Operation } from "@/server/schemas/operations";
import type { StaffActor } from "../actor";
import { tenantPaidConcurrency } from "../limits/limit-overrides";
import { answerClickOnce } from "../operations/console-click";
import { ownedBy, type Owner } from "../tenant-scope";
import { createGenerationJob, findConsoleJob } from "./generation-jobs";

/**
 * The console's "Generate article" (issue 72 item 5): the API's order (createGenerationJob) for a staff
 * member in the console's mode, paid from that mode's wallet under the tenant's paid concurrency. The
 * click's `consoleKey` (a UUID the page makes per confirmed click) makes a repeat answer the first order
 * and charge nothing (answerClickOnce).
 * @throws ApiError as createGenerationJob (409 `editorial_profile_required`, 404, 409 `invalid_state`,
 *   402, 503).
 */
export async function consoleGenerateArticle(
  db: Db,
  actor: StaffActor,
  body: CreateGenerationJob,
  consoleKey: string,
): Promise<{ operation: Operation; jobId: string }> {
  const paidConcurrency = await tenantPaidConcurrency(db, actor.tenantId);
  return answerClickOnce(
    db,
    () => findConsoleJob(db, actor, consoleKey),
    (tx) => createGenerationJob(tx, actor, body, { paidConcurrency, consoleKey }),
  );
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
