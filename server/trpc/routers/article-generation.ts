import { z } from "zod";
import { CreateGenerationJobSchema, PutEditorialProfileSchema } from "@/server/schemas/article-generation";
import { getEditorialProfile, putEditorialProfile } from "@/server/services/article-generation/editorial-profile";
import { consoleGenerateArticle, orderableTopics } from "@/server/services/article-generation/generation-console";
import { generationQuote, getGenerationJob } from "@/server/services/article-generation/generation-jobs";
import { router, tenantProcedure } from "../init";

/**
 * The console's article generation (issue 72 items 1 and 5), in the console's mode: the editorial profile
 * form, the cost of an order before it is confirmed, "Generate article" from a topic or a keyword, and the
 * job's progress. Like the API's `articles:*` scopes these need no staff right, so every member of the
 * tenant may use them (docs/console.md); an order is paid from the wallet of the console's mode.
 */
export const articleGenerationRouter = router({
  profile: tenantProcedure.query(({ ctx }) => getEditorialProfile(ctx.db, ctx.actor)),
  // The profile under its own key: its schema is strict, so beside `tenantId` it would refuse that key.
  saveProfile: tenantProcedure
    .input(z.object({ profile: PutEditorialProfileSchema }))
    .mutation(({ ctx, input }) => putEditorialProfile(ctx.db, ctx.actor, input.profile)),
  topics: tenantProcedure.query(({ ctx }) => orderableTopics(ctx.db, ctx.actor)),
  quote: tenantProcedure
    .input(z.object({ target_words: CreateGenerationJobSchema.shape.target_words }))
    .query(({ ctx, input }) => generationQuote(ctx.actor, input.target_words)),
  generate: tenantProcedure
    .input(z.object({ key: z.uuid(), order: CreateGenerationJobSchema }))
    .mutation(({ ctx, input }) => consoleGenerateArticle(ctx.db, ctx.actor, input.order, input.key)),
  job: tenantProcedure
    .input(z.object({ id: z.uuid() }))
    .query(({ ctx, input }) => getGenerationJob(ctx.db, ctx.actor, input.id)),
});
