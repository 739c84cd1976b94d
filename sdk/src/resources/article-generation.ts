import type {
  EditorialProfile,
  EditorialProfileInput,
  GenerationJob,
  GenerationJobCreate,
  Operation,
} from "../types.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/**
 * The editorial profile and paid article generation (preview `article-generation`: switched on per tenant;
 * for other tenants every method answers ApiError `not_found`). See docs/article-generation.md.
 */
export function articleGenerationResource(ctx: Context) {
  return {
    /** `GET /articles/editorial-profile` (scope `articles:read`): unset fields are null or []. */
    profile: (o?: CallOptions): Promise<EditorialProfile> =>
      unwrap(ctx.raw.GET("/articles/editorial-profile", { signal: o?.signal })),

    /**
     * `PUT /articles/editorial-profile` (scope `articles:write`): replaces the whole profile (a field left out
     * is cleared). `niche` is what generation needs.
     * @throws ApiError `validation_failed` with a pointer per bad field
     */
    putProfile: (body: EditorialProfileInput, o?: CallOptions): Promise<EditorialProfile> =>
      unwrap(ctx.raw.PUT("/articles/editorial-profile", { body, signal: o?.signal })),

    /**
     * `POST /articles/generation-jobs` (scope `articles:generate`; paid): orders an article from `topic_id`
     * (a proposed or approved strategist topic) or `keyword`. Answers the operation (`article.generation`,
     * resource `generation_job`), finished when it finishes within `o.wait` seconds (0-20), else still
     * running: then wait for it with `client.waitForOperation(operation.id)` and read the job's `article_id`. A repeat with the same Idempotency-Key answers the same operation and charges
     * nothing again.
     * @throws ApiError `editorial_profile_required` (no `niche`), `invalid_state` (topic not orderable),
     *   `not_found` (topic), `insufficient_funds`, `spend_limit_reached` (also at 3 unfinished generations),
     *   `rate_limited`, `validation_failed`
     */
    generate: async (body: GenerationJobCreate, o?: WriteOptions & { wait?: number }): Promise<Operation> =>
      (
        await unwrap(
          ctx.raw.POST("/articles/generation-jobs", {
            params: {
              header: { "Idempotency-Key": keyOf(ctx, o) },
              ...(o?.wait !== undefined ? { query: { wait: o.wait } } : {}),
            },
            body,
            signal: o?.signal,
          }),
        )
      ).operation,

    /** `GET /articles/generation-jobs/{id}` (scope `articles:read`): status, `article_id` once written, `usage`. */
    job: (id: string, o?: CallOptions): Promise<GenerationJob> =>
      unwrap(ctx.raw.GET("/articles/generation-jobs/{id}", { params: { path: { id } }, signal: o?.signal })),
  };
}
