import type { Db } from "@/db/client";
import { articles, generationJobs, operations } from "@/db/schema";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";

/** A small HTML article of the owner's own blog (a draft unless `status` says otherwise). */
async function article(db: Db, o: TenantFixture, status = "draft"): Promise<string> {
  const [a] = await db
    .insert(articles)
    .values({
      tenantId: o.tenantId,
      title: "Matrix article",
      status,
      bodyHtml: "<p>Matrix</p>",
      updatedAt: new Date(),
    })
    .returning({ id: articles.id });
  return a.id;
}

/** A finished generation job of the owner (issue 72), with its operation. */
async function generationJob(db: Db, o: TenantFixture): Promise<string> {
  const [op] = await db
    .insert(operations)
    .values({ tenantId: o.tenantId, integrationId: o.integrationId, type: "article.generation", status: "failed" })
    .returning({ id: operations.id });
  const [job] = await db
    .insert(generationJobs)
    .values({ tenantId: o.tenantId, operationId: op.id, keyword: "matrix", targetWords: 1200, status: "failed" })
    .returning({ id: generationJobs.id });
  return job.id;
}

/** Isolation fixtures of the article routes (see ID_ROUTE_FIXTURES). */
export const ARTICLE_FIXTURES: Record<string, IdRouteFixture> = {
  getArticle: {
    make: async (db, o) => `/articles/${await article(db, o)}`,
    missing: async () => `/articles/${crypto.randomUUID()}`,
  },
  // Preview articles-writes (issue 71): If-Match is optional, so none is sent.
  updateArticle: {
    make: async (db, o) => `/articles/${await article(db, o)}`,
    missing: async () => `/articles/${crypto.randomUUID()}`,
    body: { title: "Changed by the matrix" },
  },
  approveArticle: {
    make: async (db, o) => `/articles/${await article(db, o)}/approve`,
    missing: async () => `/articles/${crypto.randomUUID()}/approve`,
  },
  publishArticle: {
    make: async (db, o) => `/articles/${await article(db, o, "approved")}/publish`,
    missing: async () => `/articles/${crypto.randomUUID()}/publish`,
    body: { target: "none" },
  },
  // Preview article-generation (issue 72).
  getGenerationJob: {
    make: async (db, o) => `/articles/generation-jobs/${await generationJob(db, o)}`,
    missing: async () => `/articles/generation-jobs/${crypto.randomUUID()}`,
  },
};
