import {
  CreateGenerationJobSchema,
  EditorialProfileSchema,
  GenerationJobSchema,
  PutEditorialProfileSchema,
} from "@/server/schemas/article-generation";
import { getDb } from "@/db/client";
import { UuidParam, waitQuery } from "@/server/schemas/common";
import { OperationEnvelopeSchema } from "@/server/schemas/operations";
import { getEditorialProfile, putEditorialProfile } from "@/server/services/article-generation/editorial-profile";
import {
  createGenerationJob,
  generationJobOperation,
  getGenerationJob,
  GENERATIONS_PER_TENANT,
} from "@/server/services/article-generation/generation-jobs";
import type { Owner } from "@/server/services/tenant-scope";
import type { AnyRoute, Reply } from "../define-route";
import { defineRoute, ok } from "../define-route";
import { answerWhenSettled } from "../settle-wait";

// The editorial profile and paid article generation (issue 72), released to tenants with the
// `article-generation` preview (server/schemas/previews.ts); every other caller gets the Planned 404.

const PREVIEW = "article-generation" as const;

/** `GET /articles/editorial-profile`: what generated articles are about and how they read. */
export const getEditorialProfileRoute = defineRoute({
  operationId: "getEditorialProfile",
  summary: "Read the editorial profile (preview article-generation)",
  method: "GET",
  path: "/articles/editorial-profile",
  scope: "articles:read",
  rate: "read",
  preview: PREVIEW,
  responses: { 200: EditorialProfileSchema },
  handler: async ({ db, actor }) => ok(await getEditorialProfile(db, actor)),
});

/** `PUT /articles/editorial-profile`: replaces the whole profile. */
export const putEditorialProfileRoute = defineRoute({
  operationId: "putEditorialProfile",
  summary: "Replace the editorial profile (preview article-generation)",
  description:
    "Send the whole profile: a field left out is cleared. `niche` is what generation needs (without it `POST /articles/generation-jobs` answers 409 `editorial_profile_required`). `avoid` lists words the articles must not contain; `example_text` is a sample of your writing whose style is followed, never copied.",
  method: "PUT",
  path: "/articles/editorial-profile",
  scope: "articles:write",
  rate: "write",
  preview: PREVIEW,
  body: PutEditorialProfileSchema,
  responses: { 200: EditorialProfileSchema },
  handler: async ({ db, actor, body }) => ok(await putEditorialProfile(db, actor, body)),
});

/**
 * Waits up to `seconds` for a generation (query `wait`), outside any transaction: 200 with the finished
 * operation as soon as it succeeded or failed, else 202 with it as it is when time is up.
 */
async function waitForGeneration(owner: Owner, jobId: string, seconds: number): Promise<Reply> {
  const db = await getDb();
  return answerWhenSettled(async () => {
    const operation = await generationJobOperation(db, owner, jobId);
    const running = operation.status === "queued" || operation.status === "running";
    return { status: running ? 202 : 200, body: { operation }, operationId: operation.id };
  }, seconds);
}

/** `POST /articles/generation-jobs`: paid; 202 with the operation `article.generation` (200 once finished within `wait`). */
export const createGenerationJobRoute = defineRoute({
  operationId: "createGenerationJob",
  summary: "Order an article (paid; preview article-generation)",
  description: `Paid: the writer's tokens are priced as the AI seller's (the hold is the most \`target_words\` can cost; the charge is what was used). Send \`topic_id\` (a strategist topic, proposed or approved: it becomes \`generating\`, then \`generated\` with \`generated_article_id\`) or \`keyword\`. Answers 202 with the operation (type \`article.generation\`, resource \`generation_job\`), or 200 with it finished when it finishes within \`wait\` seconds (0-20); poll \`GET /articles/generation-jobs/{id}\` or \`GET /operations/{id}\`, or wait for \`article.ready\` (the new \`draft\`) or \`article.generation.failed\`. At most ${GENERATIONS_PER_TENANT} generations of a tenant run at once. A repeat with the same Idempotency-Key answers the same operation and charges nothing again.`,
  method: "POST",
  path: "/articles/generation-jobs",
  scope: "articles:generate",
  rate: "paid",
  idempotency: "required",
  preview: PREVIEW,
  query: waitQuery("the article"),
  body: CreateGenerationJobSchema,
  responses: { 200: OperationEnvelopeSchema, 202: OperationEnvelopeSchema },
  problems: [
    "editorial_profile_required",
    "invalid_state",
    "insufficient_funds",
    "spend_limit_reached",
    "upstream_unavailable",
  ],
  handler: async ({ db, actor, caller, query, body }) => {
    const { operation, jobId } = await createGenerationJob(db, actor, body, {
      paidConcurrency: caller.tenantLimits.paid_concurrency,
    });
    return {
      status: 202,
      body: { operation },
      resource: { type: "generation_job", id: jobId },
      settle: query.wait > 0 ? () => waitForGeneration(actor, jobId, query.wait) : undefined,
    };
  },
  // A repeat answers the operation as it is now (200 once finished), after its own `wait`.
  replay: async ({ actor, query }, id) => waitForGeneration(actor, id, query.wait),
});

/** `GET /articles/generation-jobs/{id}`: the job, its article once written, its usage. */
export const getGenerationJobRoute = defineRoute({
  operationId: "getGenerationJob",
  summary: "Read a generation job (preview article-generation)",
  method: "GET",
  path: "/articles/generation-jobs/{id}",
  scope: "articles:read",
  rate: "read",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: GenerationJobSchema },
  handler: async ({ db, actor, params }) => ok(await getGenerationJob(db, actor, params.id)),
});

/** Routes of the `article-generation` preview. */
export const ARTICLE_GENERATION_ROUTES: AnyRoute[] = [
  getEditorialProfileRoute,
  putEditorialProfileRoute,
  createGenerationJobRoute,
  getGenerationJobRoute,
];
