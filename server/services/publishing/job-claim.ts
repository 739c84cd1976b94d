import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { articles, publicationJobs } from "@/db/schema";
import { ApiError } from "@/server/errors";
import type { ClaimedJobSchema } from "@/server/schemas/connector";
import { articleContent } from "../articles/articles";
import type { ConnectorSite } from "./connector-sites";
import { showOnArticle } from "./job-publication";

type ArticleRow = typeof articles.$inferSelect;

/**
 * A job handed to a connector under a lease: the `200` of `POST /jobs/claim`, the type of its schema
 * (server/schemas/connector.ts), so the answer and the protocol's document cannot drift apart.
 */
export type ClaimedJob = z.infer<typeof ClaimedJobSchema>;

/** Superseded jobs one claim resolves before it answers (the rest wait for the next claim). */
const SUPERSEDED_PER_CLAIM = 50;

/** The `error` of a job resolved `skipped` because its article changed after it was queued. */
export function supersededError(version: number): string {
  return `superseded: the article changed (now version ${version}) after this job was queued`;
}

/**
 * Claims the site's oldest due job (state `queued` with no lease or an expired one) for `leaseSeconds`
 * (spec States "Article and publication"; DESIGN "State lives in PostgreSQL"): one transaction that
 * locks the row with `FOR UPDATE SKIP LOCKED`, so concurrent claimants never take the same job, and sets
 * `lease_until` (database clock) and `claimed_by` = a new `lease_id`. A job whose article has a newer
 * version than the job's resolves `skipped` (superseded) without being sent, and the next one is tried.
 * The job stays `queued` while leased (the spec's `queued` = queued or given to the module); a lease not
 * renewed (heartbeat) makes it due again. The site's drafts-only ceiling applies again here, in case it
 * was set after the job was queued.
 * @returns the job, or null when nothing is due
 */
export async function claimJob(db: Db, site: ConnectorSite, leaseSeconds: number): Promise<ClaimedJob | null> {
  return db.transaction(async (tx) => {
    for (let i = 0; i < SUPERSEDED_PER_CLAIM; i++) {
      const [due] = rowsOf<{
        id: string;
        version: number;
        publish_mode: string;
        article_id: string;
        now_version: number;
      }>(
        await tx.execute(sql`
          select j.id, j.version, j.publish_mode, j.article_id, a.version as now_version
          from publication_jobs j join articles a on a.id = j.article_id
          where j.site_id = ${site.id} and j.tenant_id = ${site.tenantId} and j.livemode = ${site.livemode}
            and j.state = 'queued' and (j.lease_until is null or j.lease_until < now())
          order by j.created_at, j.id
          limit 1
          for update of j skip locked`),
      );
      if (!due) return null;
      if (Number(due.now_version) > Number(due.version)) {
        const error = supersededError(Number(due.now_version));
        await tx
          .update(publicationJobs)
          .set({ state: "skipped", error, leaseUntil: null, claimedBy: null, updatedAt: sql`now()` })
          .where(eq(publicationJobs.id, due.id));
        await showOnArticle(tx as Db, due.id, due.article_id, { state: "skipped", published_url: null, error });
        continue;
      }
      const [article] = await tx.select().from(articles).where(eq(articles.id, due.article_id));
      let payload: ClaimedJob["article"];
      try {
        payload = articlePayload(article!);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        // Over the HTML limit (an article that grew after it was queued): fails here, never sent.
        const error = err.message.slice(0, 200);
        await tx
          .update(publicationJobs)
          .set({ state: "failed", error, leaseUntil: null, claimedBy: null, updatedAt: sql`now()` })
          .where(eq(publicationJobs.id, due.id));
        await showOnArticle(tx as Db, due.id, due.article_id, { state: "failed", published_url: null, error });
        continue;
      }
      const leaseId = `lease_${randomUUID().replace(/-/g, "")}`;
      const [leased] = rowsOf<{ lease_ms: string }>(
        await tx.execute(sql`
          update publication_jobs
          set lease_until = now() + ${`${leaseSeconds} seconds`}::interval, claimed_by = ${leaseId}, updated_at = now()
          where id = ${due.id}
          returning (extract(epoch from lease_until) * 1000)::bigint::text as lease_ms`),
      );
      return {
        id: due.id,
        version: Number(due.version),
        lease_id: leaseId,
        lease_until: new Date(Number(leased!.lease_ms)).toISOString(),
        publish_mode: site.draftsOnly ? "draft" : (due.publish_mode as "draft" | "publish"),
        livemode: site.livemode,
        site: { id: site.id, domain: site.domain },
        article: payload,
      };
    }
    return null;
  });
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The article as a connector gets it: cleaned HTML and markdown made from it (the read rules of
 * `GET /articles/{id}`), the slug or, without one, the article's id.
 * @throws ApiError 422 on `/content` over 2,000,000 bytes (the publish route refuses such an article first)
 */
function articlePayload(a: ArticleRow): ClaimedJob["article"] {
  const html = articleContent(a, "html");
  const markdown = articleContent(a, "markdown");
  if (typeof html !== "string" || typeof markdown !== "string")
    throw new ApiError("internal_error", "The article's content could not be rendered.");
  return {
    id: a.id,
    title: a.title,
    slug: a.slug || a.id,
    locale: a.locale,
    keyword: a.keyword,
    meta_title: a.metaTitle,
    meta_description: a.metaDescription,
    cover_image_url: a.coverImageUrl,
    published_at: iso(a.publishedAt),
    updated_at: iso(a.updatedAt),
    html,
    markdown,
  };
}

/**
 * {@link claimJob} as a long poll: tries at once, then about every `pollMs` (default 1 s) until a job is
 * due, `waitMs` has passed, or `signal` aborts (the client went away). Each try is one short transaction
 * on the partial index of due jobs, so a waiting connector holds no connection between tries.
 * @returns the job, or null when none came due in time
 */
export async function waitForJob(
  db: Db,
  site: ConnectorSite,
  opts: { waitMs: number; leaseSeconds: number; signal?: AbortSignal; pollMs?: number },
): Promise<ClaimedJob | null> {
  const until = Date.now() + opts.waitMs;
  for (;;) {
    const job = await claimJob(db, site, opts.leaseSeconds);
    if (job) return job;
    const left = until - Date.now();
    if (left <= 0 || opts.signal?.aborted) return null;
    await pause(Math.min(left, opts.pollMs ?? 1000), opts.signal);
    if (opts.signal?.aborted) return null;
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
