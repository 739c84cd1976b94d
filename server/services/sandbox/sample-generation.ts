import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { editorialProfiles, generationJobs, operations } from "@/db/schema";
import { ownedBy } from "../tenant-scope";
import type { SandboxContext } from "./sample-context";

/**
 * The sandbox's article generation samples (issue 72): an editorial profile, so that a test key can order
 * an article at once (docs/article-generation.md "Test mode"), and a succeeded generation job for each sample
 * `article.generation` operation (sample-money.ts), which then names its job as its `resource`, as the
 * engine records one.
 */
export async function seedSandboxGeneration(tx: Db, ctx: SandboxContext): Promise<void> {
  await tx
    .insert(editorialProfiles)
    .values({
      ...ctx.owner,
      niche: "running shoes and trail gear",
      audience: "beginners training for their first race",
      tone: "friendly, practical",
      presentation: "short sections with lists",
      topicSources: ["own_site", "manual"],
      avoid: ["cheap"],
      locale: "ru",
    })
    .onConflictDoNothing();
  const ops = await tx
    .select()
    .from(operations)
    .where(and(ownedBy(operations, ctx.owner), eq(operations.type, "article.generation")));
  for (const op of ops) {
    const [job] = await tx
      .insert(generationJobs)
      .values({
        ...ctx.owner,
        operationId: op.id,
        integrationId: op.integrationId,
        keyword: "running shoes",
        targetWords: 1200,
        status: op.status === "succeeded" ? "succeeded" : "failed",
        articleId: op.resourceType === "article" ? op.resourceId : null,
        usage: op.usage,
        createdAt: op.createdAt,
        completedAt: op.completedAt,
      })
      .returning({ id: generationJobs.id });
    await tx
      .update(operations)
      .set({ resourceType: "generation_job", resourceId: job!.id })
      .where(eq(operations.id, op.id));
  }
}
