import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { articles, publicationJobs } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import type { JobResultState } from "@/server/schemas/connector";
import { recordEvent } from "../events/outbox";
import type { ConnectorSite } from "./connector-sites";
import { showOnArticle } from "./job-publication";

/** The 409 of a call on a job whose lease this caller no longer holds (expired, or claimed by another). */
export function leaseLost(): ApiError {
  return new ApiError(
    "invalid_state",
    "This lease is lost: it expired or the job was claimed again or already has a result. Drop the job and claim again.",
  );
}

/** 404 when the site has no such job, else 409: the reason a lease condition matched no row. */
async function whyNot(db: Db, site: ConnectorSite, jobId: string): Promise<ApiError> {
  const [job] = await db
    .select({ id: publicationJobs.id })
    .from(publicationJobs)
    .where(and(eq(publicationJobs.id, jobId), eq(publicationJobs.siteId, site.id)));
  return job ? leaseLost() : notFound("Job");
}

/** `id = jobId` of this site, still `queued`, leased by `leaseId`, lease not passed (database clock). */
const held = (site: ConnectorSite, jobId: string, leaseId: string) => sql`
  id = ${jobId} and site_id = ${site.id} and state = 'queued' and claimed_by = ${leaseId} and lease_until >= now()`;

/**
 * `POST /jobs/{id}/heartbeat`: extends the lease by `leaseSeconds` from now.
 * @returns the new `lease_until` (ISO 8601)
 * @throws ApiError 404 when the site has no such job; 409 `invalid_state` when the lease is lost
 */
export async function renewLease(
  db: Db,
  site: ConnectorSite,
  jobId: string,
  leaseId: string,
  leaseSeconds: number,
): Promise<{ id: string; lease_until: string }> {
  const [row] = rowsOf<{ lease_ms: string }>(
    await db.execute(sql`
      update publication_jobs set lease_until = now() + ${`${leaseSeconds} seconds`}::interval, updated_at = now()
      where ${held(site, jobId, leaseId)}
      returning (extract(epoch from lease_until) * 1000)::bigint::text as lease_ms`),
  );
  if (!row) throw await whyNot(db, site, jobId);
  return { id: jobId, lease_until: new Date(Number(row.lease_ms)).toISOString() };
}

/**
 * `POST /jobs/{id}/release`: gives the lease back (a connector stopping, SIGTERM): the job is due again
 * at once for the next claim.
 * @throws ApiError 404 when the site has no such job; 409 `invalid_state` when the lease is lost
 */
export async function releaseLease(db: Db, site: ConnectorSite, jobId: string, leaseId: string): Promise<void> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      update publication_jobs set lease_until = null, claimed_by = null, updated_at = now()
      where ${held(site, jobId, leaseId)}
      returning id`),
  );
  if (rows.length === 0) throw await whyNot(db, site, jobId);
}

/** Body of a result (server/schemas/connector.ts ResultBody). */
export interface JobResultInput {
  lease_id: string;
  state: JobResultState;
  published_url?: string;
  error?: string;
}

/** What `POST /jobs/{id}/result` answers. */
export interface JobResult {
  id: string;
  state: JobResultState;
  published_url: string | null;
  error: string | null;
}

/**
 * `POST /jobs/{id}/result` (spec States "Article and publication"): ends a leased job with the module's
 * result and shows it as the article's `publication` (when it is the article's newest job). `applied`
 * with a `published_url` of a job in publish mode makes an `approved` article `published` (its first
 * `published_at` kept) and emits `article.published` {type, article_id, published_url} in the site's
 * mode, in the same transaction (call it inside one, with afterCommit, as the door does).
 * @throws ApiError 404 when the site has no such job; 409 `invalid_state` when the lease is lost
 */
export async function reportResult(
  db: Db,
  site: ConnectorSite,
  jobId: string,
  input: JobResultInput,
): Promise<JobResult> {
  const url = input.published_url ?? null;
  const error = input.error ?? null;
  const [job] = await db
    .update(publicationJobs)
    .set({
      state: input.state,
      publishedUrl: url,
      error,
      leaseUntil: null,
      updatedAt: sql`now()`,
    })
    .where(held(site, jobId, input.lease_id))
    .returning();
  if (!job) throw await whyNot(db, site, jobId);
  await showOnArticle(db, job.id, job.articleId, { state: input.state, published_url: url, error });
  const publish = !site.draftsOnly && job.publishMode === "publish";
  if (input.state === "applied" && url && publish) {
    await db
      .update(articles)
      .set({ status: "published", publishedAt: sql`coalesce(${articles.publishedAt}, now())`, updatedAt: new Date() })
      .where(and(eq(articles.id, job.articleId), sql`${articles.status} in ('approved', 'published')`));
    await recordEvent(db, {
      tenantId: job.tenantId,
      livemode: job.livemode,
      type: "article.published",
      data: { type: "article", article_id: job.articleId, published_url: url },
    });
  }
  return { id: job.id, state: input.state, published_url: url, error };
}
