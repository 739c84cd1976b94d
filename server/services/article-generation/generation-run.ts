import { and, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { articles, generationJobs, products, strategistReports, strategistTopics, tenants } from "@/db/schema";
import { formatMinor } from "@/server/lib/money";
import type { Operation } from "@/server/schemas/operations";
import { rankCards } from "../ai-seller/catalog-model";
import { costMinor } from "../ai-seller/prices";
import { cleanArticleHtml } from "../articles/article-html";
import { toCard } from "../cards/card-view";
import { recordEvent } from "../events/outbox";
import { chargeOf, finishOperation, type RunOutcome } from "../operations/operation-runs";
import { ownedBy, ownerOf, type Owner } from "../tenant-scope";
import type { ArticleBrief, ArticleDraft, BriefCard } from "@/server/lib/article-writing/article-brief";
import { readEditorialProfile } from "./editorial-profile";

type JobRow = typeof generationJobs.$inferSelect;

/** How a generation ends without an article: the operation's and the job's `error`. */
export interface GenerationFailure {
  code: string;
  message: string;
}

/** A generation past its deadline (the engine's operation timeout). */
export const GENERATION_TIMEOUT: GenerationFailure = {
  code: "operation_timeout",
  message: "The article was not written in time; the hold is released and nothing is charged.",
};

/** The writer could not write (the model failed, after its retries). */
export const WRITER_UNAVAILABLE: GenerationFailure = {
  code: "ai_unavailable",
  message: "The writer could not write the article; the hold is released and nothing is charged. Order it again.",
};

/** Cards the brief offers the writer, at most (what rankCards answers). */
const BRIEF_CARDS = 3;
const LANGUAGE_OF_CELL: Record<string, string> = { ru: "ru", en: "en", id: "id" };

/** The job of an `article.generation` operation, or undefined when it has none (a seeded or foreign row). */
export async function jobOfOperation(db: Db, operationId: string): Promise<JobRow | undefined> {
  const [job] = await db.select().from(generationJobs).where(eq(generationJobs.operationId, operationId));
  return job;
}

/**
 * What the writer is asked for a job (issue 72 item 3), read in the job's tenant and mode: the editorial
 * profile, the ordered topic or keyword, the tenant's active cards that match the keyword (best first, each
 * with its page on the tenant's site) and its strategist data (open topics, the newest report's highlights).
 * @returns the brief, or a failure when the profile lost its niche since the order
 */
export async function generationBrief(db: Db, job: JobRow): Promise<ArticleBrief | GenerationFailure> {
  const owner: Owner = { tenantId: job.tenantId, livemode: job.livemode };
  const profile = await readEditorialProfile(db, owner);
  if (!profile.niche)
    return { code: "editorial_profile_required", message: "The editorial profile has no niche any more." };
  const [tenant] = await db
    .select({ name: tenants.name, cell: tenants.cell, mainDomain: tenants.mainDomain })
    .from(tenants)
    .where(eq(tenants.id, job.tenantId));
  const [topic] = job.topicId
    ? await db
        .select({ title: strategistTopics.title, rationale: strategistTopics.rationale })
        .from(strategistTopics)
        .where(and(ownedBy(strategistTopics, owner), eq(strategistTopics.id, job.topicId)))
    : [];
  const keyword = job.keyword ?? topic?.title ?? job.title ?? profile.niche;
  const rows = await db
    .select()
    .from(products)
    .where(and(ownedBy(products, owner), eq(products.active, true), sql`${products.code} is not null`))
    .orderBy(products.sort, products.createdAt, products.id)
    .limit(500);
  const cell = tenant?.cell ?? "ru";
  const all = rows.map((p) => ({ row: p, card: toCard(p, tenant?.mainDomain ?? null, cell) }));
  const picked = rankCards(
    all.map(({ card }) => ({
      code: card.code,
      name: card.name,
      description: card.description,
      badge: card.badge,
      priceText: card.price_text,
    })),
    keyword,
    profile.niche,
  );
  const byCode = new Map(all.map((a) => [a.card.code, a.card]));
  const cards: BriefCard[] = picked
    .map((p) => byCode.get(p.code)!)
    .filter((c) => c.page_url)
    .slice(0, BRIEF_CARDS)
    .map((c) => ({
      code: c.code,
      name: c.name,
      description: c.description,
      priceText: c.price_text,
      url: c.page_url!,
    }));
  const openTopics = await db
    .select({ title: strategistTopics.title })
    .from(strategistTopics)
    .where(
      and(
        ownedBy(strategistTopics, owner),
        inArray(strategistTopics.status, ["proposed", "approved"]),
        job.topicId ? ne(strategistTopics.id, job.topicId) : sql`true`,
      ),
    )
    .orderBy(sql`${strategistTopics.trendScore} desc nulls last`, desc(strategistTopics.id))
    .limit(10);
  const [report] = await db
    .select({ highlights: strategistReports.highlights })
    .from(strategistReports)
    .where(ownedBy(strategistReports, owner))
    .orderBy(desc(strategistReports.createdAt))
    .limit(1);
  const highlights = (report?.highlights ?? [])
    .map((h) => [h.title, h.detail].filter((x) => typeof x === "string" && x).join(": "))
    .filter(Boolean)
    .slice(0, 10);
  return {
    shopName: tenant?.name ?? "",
    profile: { ...profile, niche: profile.niche },
    topic: topic?.title ? { title: topic.title, rationale: topic.rationale } : null,
    keyword,
    title: job.title,
    locale: job.locale ?? profile.locale ?? LANGUAGE_OF_CELL[cell] ?? "en",
    targetWords: job.targetWords,
    cards,
    strategist: { topics: openTopics.map((t) => t.title).filter((t): t is string => !!t), highlights },
  };
}

/**
 * Moves the job's topic out of `generating` (spec States "Strategist topic and action"): to `generated`
 * with its article, or back to the status it was ordered from. Nothing when the job has no topic, or the
 * topic is no longer `generating` (someone decided on it meanwhile).
 */
async function settleTopic(tx: Db, job: JobRow, set: { status: string; generatedArticleId?: string }): Promise<void> {
  if (!job.topicId) return;
  await tx
    .update(strategistTopics)
    .set(set)
    .where(
      and(
        ownedBy(strategistTopics, { tenantId: job.tenantId, livemode: job.livemode }),
        eq(strategistTopics.id, job.topicId),
        eq(strategistTopics.status, "generating"),
      ),
    );
}

/** Makes the job `running` (a claimed run); nothing when it has finished. */
export async function markGenerationRunning(db: Db, jobId: string): Promise<void> {
  await db
    .update(generationJobs)
    .set({ status: "running" })
    .where(and(eq(generationJobs.id, jobId), inArray(generationJobs.status, ["queued", "running"])));
}

/**
 * Records the writer's draft for run `attempt` of operation `id` in the operation's finishing transaction
 * (finishOperation): the HTML sanitized with the read rules (cleanArticleHtml), a `draft` article of the
 * job's tenant and mode with the keyword and locale of the brief, the job `succeeded` with `article_id` and
 * `usage`, the topic (while still `generating`) `generated` with `generated_article_id`, event
 * `article.ready`; the operation
 * `succeeded` with the tokens priced as the AI seller's are (prices.ts, charged at most the hold) and
 * `operation.completed`.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function completeGeneration(
  db: Db,
  id: string,
  attempt: number,
  brief: ArticleBrief,
  draft: ArticleDraft,
): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx, op): Promise<RunOutcome> => {
    const job = await jobOfOperation(tx, id);
    if (!job) return { status: "failed", costMinor: 0n, error: { code: "not_found", message: "The job is gone." } };
    const owner: Owner = { tenantId: job.tenantId, livemode: job.livemode };
    const now = new Date();
    const [article] = await tx
      .insert(articles)
      .values({
        ...ownerOf(owner),
        title: draft.title,
        slug: draft.slug || null,
        status: "draft",
        locale: brief.locale,
        keyword: brief.keyword,
        metaTitle: draft.metaTitle || null,
        metaDescription: draft.metaDescription || null,
        wordCount: draft.wordCount,
        bodyHtml: cleanArticleHtml(draft.html),
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: articles.id });
    const cost = costMinor(draft.model, draft);
    const usage = { cost: { amount: formatMinor(chargeOf(op, cost)), currency: "RUB" }, model: draft.model };
    await tx
      .update(generationJobs)
      .set({ status: "succeeded", articleId: article!.id, usage, completedAt: now, error: null })
      .where(eq(generationJobs.id, job.id));
    await settleTopic(tx, job, { status: "generated", generatedArticleId: article!.id });
    await recordEvent(tx, {
      tenantId: job.tenantId,
      type: "article.ready",
      livemode: job.livemode,
      data: { type: "article", article_id: article!.id },
    });
    return {
      status: "succeeded",
      costMinor: cost,
      model: draft.model,
      resource: { type: "generation_job", id: job.id },
    };
  });
}

/**
 * Ends run `attempt` of a generation without an article, in the operation's finishing transaction: the job
 * `failed` with `error`, its topic back to the status it had when ordered (when it is still `generating`),
 * event `article.generation.failed` ({type: generation_job, generation_job_id, operation_id}); the operation
 * `failed` with the same error, its whole hold released, and `operation.completed`.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function failGeneration(
  db: Db,
  id: string,
  attempt: number,
  failure: GenerationFailure,
): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx): Promise<RunOutcome> => {
    const job = await jobOfOperation(tx, id);
    if (job) {
      await tx
        .update(generationJobs)
        .set({ status: "failed", error: failure, completedAt: new Date() })
        .where(eq(generationJobs.id, job.id));
      await settleTopic(tx, job, { status: job.topicPreviousStatus ?? "proposed" });
      await recordEvent(tx, {
        tenantId: job.tenantId,
        type: "article.generation.failed",
        livemode: job.livemode,
        data: { type: "generation_job", generation_job_id: job.id, operation_id: id },
      });
    }
    return {
      status: "failed",
      costMinor: 0n,
      error: failure,
      ...(job ? { resource: { type: "generation_job", id: job.id } } : {}),
    };
  });
}
