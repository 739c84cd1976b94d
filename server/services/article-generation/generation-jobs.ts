import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { generationJobs, operations, strategistTopics } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { money, type Money } from "@/server/lib/money";
import type { CreateGenerationJob, GenerationJob } from "@/server/schemas/article-generation";
import type { Operation } from "@/server/schemas/operations";
import { languageModelFor } from "../ai-seller/current-model";
import { maxWriteCostMinor } from "../ai-seller/prices";
import { announceOperations } from "../events/work-notifier";
import { toOperation } from "../operations/operations";
import { createPaidOperation, operationLivemode, type PaidOperationActor } from "../operations/paid-operations";
import { ownedBy, ownerOf, type Owner } from "../tenant-scope";
import { hasNiche } from "./editorial-profile";

type JobRow = typeof generationJobs.$inferSelect;

/** Article generations a tenant may have unfinished at once, per mode, inside its paid concurrency (issue 72 item 4). */
export const GENERATIONS_PER_TENANT = 3;

/** Topic statuses a generation may be ordered from (issue 72 item 2). */
const ORDERABLE = new Set(["proposed", "approved"]);

/** Row → GenerationJob (issue 72 item 2). */
export function toGenerationJob(r: JobRow): GenerationJob {
  return {
    id: r.id,
    status: r.status as GenerationJob["status"],
    topic_id: r.topicId,
    keyword: r.keyword,
    article_id: r.articleId,
    error: r.error ?? null,
    created_at: r.createdAt.toISOString(),
    completed_at: r.completedAt?.toISOString() ?? null,
    usage: r.usage ?? null,
  };
}

/**
 * The model a generation ordered by `actor` runs, as priced (the AI seller's rule, issue 76 item 3): the
 * configured one (`AI_PROVIDER`) only for a live key or the live console on live data; every test-mode
 * generation runs the offline writer.
 */
export function generationModel(actor: PaidOperationActor): string {
  return languageModelFor(operationLivemode(actor) && (actor.livemode ?? true)).writerModel;
}

/**
 * The most a generation of `targetWords` words ordered by `actor` can cost: its hold, shown in the console
 * before confirming (issue 72 item 5). RUB.
 */
export function generationQuote(actor: PaidOperationActor, targetWords: number): { max_cost: Money; model: string } {
  const model = generationModel(actor);
  return { max_cost: money(maxWriteCostMinor(model, targetWords)), model };
}

/**
 * `POST /articles/generation-jobs` (issue 72 item 2) and the console's "Generate article", in the caller's
 * transaction: checks the order, then creates the paid operation `article.generation` (its hold priced on
 * the model's most tokens for `target_words`; the engine's limits and refusals, and at most
 * {@link GENERATIONS_PER_TENANT} unfinished generations per tenant and mode), the job (`queued`) in the
 * data's mode, the operation's `resource` {generation_job}, and moves an ordered topic to `generating`
 * (remembering its status, to which a failure returns it). The job is announced to the engine after the
 * commit. `consoleKey` (the console click's key) is kept on the job: a repeat of the click finds it
 * ({@link findConsoleJob}).
 * @returns the operation envelope and the job's id (the idempotency record's resource)
 * @throws ApiError 409 `editorial_profile_required` (no `niche`), before any hold; 404 for a foreign or
 *   missing topic; 409 `invalid_state` for a topic neither `proposed` nor `approved`; 402
 *   `insufficient_funds` / `spend_limit_reached`; 503 `upstream_unavailable` (createPaidOperation).
 */
export async function createGenerationJob(
  db: Db,
  actor: PaidOperationActor,
  body: CreateGenerationJob,
  opts: { paidConcurrency: number; consoleKey?: string },
): Promise<{ operation: Operation; jobId: string }> {
  if (!(await hasNiche(db, actor)))
    throw new ApiError(
      "editorial_profile_required",
      "Fill the editorial profile first: `niche` is required (PUT /articles/editorial-profile, or the console's Articles → Editorial profile).",
    );
  const [topic] = body.topic_id
    ? await db
        .select()
        .from(strategistTopics)
        .where(and(ownedBy(strategistTopics, actor), eq(strategistTopics.id, body.topic_id)))
        .for("update")
    : [];
  if (body.topic_id && !topic) throw notFound("Topic");
  if (topic && !ORDERABLE.has(topic.status))
    throw new ApiError(
      "invalid_state",
      `The topic is ${topic.status}; an article can be generated from a proposed or approved topic only.`,
    );
  const op = await createPaidOperation(db, actor, {
    type: "article.generation",
    maxCostMinor: maxWriteCostMinor(generationModel(actor), body.target_words),
    paidConcurrency: opts.paidConcurrency,
    typeConcurrency: GENERATIONS_PER_TENANT,
    conversationId: null,
    messageId: null,
    channelId: null,
  });
  const [job] = await db
    .insert(generationJobs)
    .values({
      ...ownerOf(actor),
      operationId: op.id,
      integrationId: op.integrationId,
      staffUserId: op.staffUserId,
      consoleKey: actor.via === "console" ? (opts.consoleKey ?? null) : null,
      topicId: topic?.id ?? null,
      topicPreviousStatus: topic?.status ?? null,
      keyword: body.keyword ?? null,
      title: body.title ?? null,
      locale: body.locale ?? null,
      targetWords: body.target_words,
    })
    .returning();
  const [withResource] = await db
    .update(operations)
    .set({ resourceType: "generation_job", resourceId: job!.id })
    .where(eq(operations.id, op.id))
    .returning();
  if (topic)
    await db
      .update(strategistTopics)
      .set({ status: "generating" })
      .where(and(ownedBy(strategistTopics, actor), eq(strategistTopics.id, topic.id)));
  announceOperations([op.id], op.livemode);
  return { operation: toOperation(withResource!), jobId: job!.id };
}

/**
 * `GET /articles/generation-jobs/{id}`: a job of the owner's tenant and mode.
 * @throws ApiError 404 `not_found` for a missing one, or one of another tenant or mode.
 */
export async function getGenerationJob(db: Db, owner: Owner, id: string): Promise<GenerationJob> {
  const [row] = await db
    .select()
    .from(generationJobs)
    .where(and(ownedBy(generationJobs, owner), eq(generationJobs.id, id)));
  if (!row) throw notFound("Generation job");
  return toGenerationJob(row);
}

/** The operation envelope of a job (an idempotent replay of its order answers it as it is now). @throws ApiError 404. */
export async function generationJobOperation(db: Db, owner: Owner, jobId: string): Promise<Operation> {
  const [row] = await db
    .select({ op: operations })
    .from(generationJobs)
    .innerJoin(operations, eq(operations.id, generationJobs.operationId))
    .where(and(ownedBy(generationJobs, owner), eq(generationJobs.id, jobId)));
  if (!row) throw notFound("Generation job");
  return toOperation(row.op);
}

/**
 * The job a staff member's console click with key `consoleKey` already ordered (a repeat of the click
 * charges nothing), with its operation; null when there is none.
 */
export async function findConsoleJob(
  db: Db,
  actor: PaidOperationActor & { via: "console" },
  consoleKey: string,
): Promise<{ operation: Operation; jobId: string } | null> {
  const [row] = await db
    .select({ job: generationJobs, op: operations })
    .from(generationJobs)
    .innerJoin(operations, eq(operations.id, generationJobs.operationId))
    .where(
      and(
        ownedBy(generationJobs, actor),
        eq(generationJobs.staffUserId, actor.staffUserId),
        eq(generationJobs.consoleKey, consoleKey),
      ),
    );
  return row ? { operation: toOperation(row.op), jobId: row.job.id } : null;
}
