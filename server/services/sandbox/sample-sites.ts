import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { articles, publicationJobs, sites } from "@/db/schema";
import { hashSecret } from "../keys/key-format";
import { momentOf, type SandboxContext } from "./sample-context";

/**
 * The sandbox's publishing samples (issue 71): one site that no connector has polled yet (`not_linked`;
 * its token is random and never shown, so none ever will: a tester adds a test-mode site of their own to
 * run a connector) and, when the sandbox has articles, one failed publication job of the first one, so that
 * `GET /sites` and an article's publication history have something to show in test mode.
 */
export async function seedSandboxSites(tx: Db, ctx: SandboxContext): Promise<void> {
  const [site] = await tx
    .insert(sites)
    .values({
      ...ctx.owner,
      domain: "sandbox-site.example",
      connectorTokenHash: hashSecret(`sct_sample_${randomBytes(24).toString("base64url")}`),
      createdAt: momentOf(ctx, 20, 0.4),
    })
    .returning({ id: sites.id });
  const articleId = ctx.samples.articleIds[0];
  if (!site || !articleId) return;
  const [article] = await tx.select({ version: articles.version }).from(articles).where(eq(articles.id, articleId));
  const at = momentOf(ctx, 19, 0.5);
  await tx.insert(publicationJobs).values({
    ...ctx.owner,
    articleId,
    siteId: site.id,
    version: article?.version ?? 1,
    state: "failed",
    publishMode: "draft",
    error: "Sample job: the site's connector was not reachable.",
    createdAt: at,
    updatedAt: at,
  });
}
