import type { Db } from "@/db/client";
import { articles } from "@/db/schema";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";

/** A small HTML article of the owner's own blog. */
async function article(db: Db, o: TenantFixture): Promise<string> {
  const [a] = await db
    .insert(articles)
    .values({
      tenantId: o.tenantId,
      title: "Matrix article",
      status: "draft",
      bodyHtml: "<p>Matrix</p>",
      updatedAt: new Date(),
    })
    .returning({ id: articles.id });
  return a.id;
}

/** Isolation fixtures of the article routes (see ID_ROUTE_FIXTURES). */
export const ARTICLE_FIXTURES: Record<string, IdRouteFixture> = {
  getArticle: {
    make: async (db, o) => `/articles/${await article(db, o)}`,
    missing: async () => `/articles/${crypto.randomUUID()}`,
  },
};
