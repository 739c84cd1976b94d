import { articleEtag } from "@/server/services/articles/article-etag";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { articles, events, publicationJobs, sites } from "@/db/schema";
import { POST as claimRoute } from "@/app/api/connector/v1/jobs/claim/route";
import { POST as heartbeatRoute } from "@/app/api/connector/v1/jobs/[id]/heartbeat/route";
import { POST as releaseRoute } from "@/app/api/connector/v1/jobs/[id]/release/route";
import { POST as resultRoute } from "@/app/api/connector/v1/jobs/[id]/result/route";
import { GET as serveDocument } from "@/app/api/connector/v1/openapi.json/route";
import { connectorDocument } from "@/server/public-api/connector/document";
import { createSite } from "@/server/services/articles/sites";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ResponseValidator } from "@/server/testing/response-validator";
import { openTestDatabase } from "@/server/testing/test-db";

// The site connector protocol (issue 71 item 3; docs/site-connector.md) through its route files: token,
// long-poll claim under a lease, heartbeat, lease expiry and release, results with the lost-lease 409,
// superseded jobs, the drafts-only ceiling, and `article.published`. Jobs are queued through the public
// publish route (preview articles-writes). Leases expire by moving `lease_until` back: no sleeps.
// Every answer is checked against the protocol's OpenAPI document (closed objects, documented statuses,
// headers and problem codes). Runs on PGlite and, with DATABASE_URL, on PostgreSQL.

let validator: ResponseValidator;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const P = { preview: "articles-writes" as const };

type Answer = { status: number; body: any; headers: Headers }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function send(
  route: (r: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response>,
  path: string,
  token: string | null,
  json?: unknown,
  id = "",
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await route(
    new Request(`${TEST_ORIGIN}/api/connector/v1${path}`, {
      method: "POST",
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    }),
    { params: Promise.resolve({ id }) },
  );
  const text = await res.text();
  const answer = { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  validator.check({ method: "POST", path, ...answer });
  return answer;
}
const claim = (token: string | null, wait = "0") => send(claimRoute, `/jobs/claim?wait=${wait}`, token);
const heartbeat = (token: string, id: string, lease_id: string) =>
  send(heartbeatRoute, `/jobs/${id}/heartbeat`, token, { lease_id }, id);
const release = (token: string, id: string, lease_id: string) =>
  send(releaseRoute, `/jobs/${id}/release`, token, { lease_id }, id);
const result = (token: string, id: string, body: Record<string, unknown>) =>
  send(resultRoute, `/jobs/${id}/result`, token, body, id);

/** An approved article of the tenant's live blog. */
async function approvedArticle(title: string): Promise<string> {
  const [a] = await db.db
    .insert(articles)
    .values({
      tenantId: t.tenantId,
      title,
      slug: title.toLowerCase().replace(/\W+/g, "-"),
      status: "approved",
      bodyHtml: `<h2>${title}</h2><p>Body <script>x()</script>of it</p>`,
      metaDescription: `About ${title}`,
      updatedAt: new Date(),
    })
    .returning({ id: articles.id });
  return a!.id;
}
const publish = (id: string, siteId: string, mode = "publish") =>
  call("POST", `/articles/${id}/publish`, {
    key: t.key,
    json: { target: "connector", site_id: siteId, publish_mode: mode },
    ...P,
  });
const jobsOf = (articleId: string) =>
  db.db
    .select()
    .from(publicationJobs)
    .where(eq(publicationJobs.articleId, articleId))
    .orderBy(publicationJobs.createdAt);
const expire = (jobId: string) =>
  db.db
    .update(publicationJobs)
    .set({ leaseUntil: sql`now() - interval '1 second'` })
    .where(eq(publicationJobs.id, jobId));
const article = async (id: string) => (await db.db.select().from(articles).where(eq(articles.id, id)))[0]!;

beforeAll(async () => {
  db = await openTestDatabase();
  validator = new ResponseValidator(connectorDocument());
  t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "articles-writes", true);
  await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 100_000, writePerMin: 100_000 });
});
afterAll(async () => db.drop());

describe("connector protocol", () => {
  it("authenticates by site token, claims under a lease, renews, requeues, refuses lost leases, publishes", async () => {
    const site = await createSite(
      db.db,
      { tenantId: t.tenantId, livemode: true },
      { domain: "blog.example.ru", draftsOnly: false },
    );
    const token = site.connectorToken;
    const served = (await serveDocument().json()) as { paths: Record<string, unknown> };
    expect(Object.keys(served.paths).sort()).toEqual([
      "/jobs/claim",
      "/jobs/{id}/heartbeat",
      "/jobs/{id}/release",
      "/jobs/{id}/result",
    ]);

    // 401 for a missing, malformed or unknown token; 204 on an empty queue stamps last_seen_at.
    for (const bad of [null, "nope", `sct_${"A".repeat(43)}`, t.key]) {
      const r = await claim(bad);
      expect([r.status, r.body.code, r.headers.get("content-type")]).toEqual([
        401,
        "invalid_api_key",
        "application/problem+json",
      ]);
    }
    expect((await db.db.select().from(sites).where(eq(sites.id, site.siteId)))[0]!.lastSeenAt).toBeNull();
    const empty = await claim(token);
    expect([empty.status, empty.headers.get("ratelimit-limit")]).toEqual([204, "300"]);
    expect(empty.headers.get("x-request-id")).toMatch(/^req_/);
    expect((await db.db.select().from(sites).where(eq(sites.id, site.siteId)))[0]!.lastSeenAt).not.toBeNull();
    for (const wait of ["26", "x", "-1"]) {
      const r = await claim(token, wait);
      expect([r.status, r.body.code, r.body.errors?.[0]?.field]).toEqual([422, "validation_failed", "/wait"]);
    }

    // A publish queues a job; the claim answers it with the article and a lease.
    const a = await approvedArticle("Garden chairs");
    const queued = await publish(a, site.siteId);
    expect([queued.status, queued.body.publication?.state], JSON.stringify(queued.body)).toEqual([200, "queued"]);
    const first = await claim(token);
    expect(first.status).toBe(200);
    const job = first.body;
    const row = await article(a);
    expect(job).toMatchObject({
      version: row.version,
      publish_mode: "publish",
      livemode: true,
      site: { id: site.siteId, domain: "blog.example.ru" },
    });
    expect(job.article).toMatchObject({
      id: a,
      title: "Garden chairs",
      slug: "garden-chairs",
      meta_description: "About Garden chairs",
    });
    expect(job.article.html).toContain("<h2>Garden chairs</h2>");
    expect(job.article.html).not.toContain("script");
    expect(job.article.markdown).toContain("## Garden chairs");
    expect(Date.parse(job.lease_until)).toBeGreaterThan(Date.now() + 30_000);

    // A second claimant gets nothing; its calls on the job are 409; an unknown job is 404.
    expect((await claim(token)).status).toBe(204);
    expect((await heartbeat(token, job.id, "lease_other")).body.code).toBe("invalid_state");
    expect((await result(token, job.id, { lease_id: "lease_other", state: "applied" })).status).toBe(409);
    expect((await heartbeat(token, crypto.randomUUID(), job.lease_id)).status).toBe(404);
    expect((await heartbeat(token, "not-a-uuid", job.lease_id)).status).toBe(404);
    const other = await createSite(
      db.db,
      { tenantId: t.tenantId, livemode: true },
      { domain: "other.example.ru", draftsOnly: false },
    );
    expect((await heartbeat(other.connectorToken, job.id, job.lease_id)).status).toBe(404);

    // Heartbeat extends the lease.
    await db.db
      .update(publicationJobs)
      .set({ leaseUntil: sql`now() + interval '5 seconds'` })
      .where(eq(publicationJobs.id, job.id));
    const beat = await heartbeat(token, job.id, job.lease_id);
    expect(beat.status).toBe(200);
    expect(Date.parse(beat.body.lease_until)).toBeGreaterThan(Date.now() + 30_000);

    // A lease not renewed returns the job to the queue; the first holder's calls are then 409.
    await expire(job.id);
    expect((await heartbeat(token, job.id, job.lease_id)).status).toBe(409);
    const again = await claim(token);
    expect([again.status, again.body.id]).toEqual([200, job.id]);
    expect(again.body.lease_id).not.toBe(job.lease_id);
    const late = await result(token, job.id, {
      lease_id: job.lease_id,
      state: "applied",
      published_url: "https://blog.example.ru/x",
    });
    expect([late.status, late.body.code]).toEqual([409, "invalid_state"]);

    // Release gives the lease back: the next claim gets the job at once.
    expect((await release(token, job.id, again.body.lease_id)).status).toBe(204);
    expect((await release(token, job.id, again.body.lease_id)).status).toBe(409);
    const third = await claim(token);
    expect(third.body.id).toBe(job.id);

    // `applied` with an address in publish mode: published, publication applied, article.published.
    const url = "https://blog.example.ru/garden-chairs";
    expect(
      (await result(token, job.id, { lease_id: third.body.lease_id, state: "applied", error: "x".repeat(201) })).body
        .errors[0].field,
    ).toBe("/error");
    const tagBefore = articleEtag(await article(a));
    const done = await result(token, job.id, { lease_id: third.body.lease_id, state: "applied", published_url: url });
    expect([done.status, done.body]).toEqual([200, { id: job.id, state: "applied", published_url: url, error: null }]);
    expect((await result(token, job.id, { lease_id: third.body.lease_id, state: "failed" })).status).toBe(409);
    const published = await article(a);
    expect([published.status, published.version, published.publication]).toEqual([
      "published",
      row.version,
      { target: "connector", state: "applied", published_url: url, error: null },
    ]);
    expect(published.publishedAt).not.toBeNull();
    // The version is the content's (another site's job of it stays current), but the article changed: its
    // ETag (GET /articles/{id}, PATCH's If-Match) moves.
    expect(articleEtag(published)).not.toBe(tagBefore);
    const sent = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "article.published")));
    expect(sent.map((e) => [e.data, e.livemode])).toEqual([
      [{ type: "article", article_id: a, published_url: url }, true],
    ]);
    const read = await call("GET", `/articles/${a}`, { key: t.key });
    expect([read.body.status, read.body.publication.published_url]).toEqual(["published", url]);

    // A job whose article changed after it was queued resolves skipped without being sent.
    const b = await approvedArticle("Oak tables");
    await publish(b, site.siteId);
    const edited = await call("PATCH", `/articles/${b}`, { key: t.key, json: { title: "Oak tables, new" }, ...P });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await claim(token)).status).toBe(204);
    const [skipped] = await jobsOf(b);
    expect([skipped!.state, skipped!.error]).toEqual(["skipped", expect.stringContaining("superseded")]);
    expect((await article(b)).publication).toMatchObject({ state: "skipped" });
    await publish(b, site.siteId);
    const fresh = await claim(token);
    expect([fresh.body.article.title, fresh.body.version]).toEqual(["Oak tables, new", (await article(b)).version]);
    const conflict = await result(token, fresh.body.id, {
      lease_id: fresh.body.lease_id,
      state: "conflict",
      error: "edited by hand",
    });
    expect(conflict.body.state).toBe("conflict");
    expect([(await article(b)).status, (await article(b)).publication?.error]).toEqual(["approved", "edited by hand"]);

    // The site's drafts-only ceiling turns publish into a draft: applied leaves the article approved.
    await db.db.update(sites).set({ draftsOnly: true }).where(eq(sites.id, site.siteId));
    const c = await approvedArticle("Pine shelves");
    await publish(c, site.siteId);
    const draft = await claim(token);
    expect([draft.body.article.id, draft.body.publish_mode]).toEqual([c, "draft"]);
    await result(token, draft.body.id, {
      lease_id: draft.body.lease_id,
      state: "applied",
      published_url: "https://blog.example.ru/?p=3",
    });
    expect([(await article(c)).status, (await article(c)).publication?.state]).toEqual(["approved", "applied"]);
    expect((await db.db.select().from(events).where(eq(events.type, "article.published"))).length).toBe(1);

    // A revoked token is refused.
    await db.db.update(sites).set({ revokedAt: new Date() }).where(eq(sites.id, site.siteId));
    expect((await claim(token)).status).toBe(401);
  });

  it("long-polls: a claim with wait answers the job queued while it waits; claims race safely", async () => {
    const site = await createSite(
      db.db,
      { tenantId: t.tenantId, livemode: true },
      { domain: "poll.example.ru", draftsOnly: false },
    );
    await claim(site.connectorToken); // links the site (publish needs a working one)
    const a = await approvedArticle("Long poll");
    const waiting = claim(site.connectorToken, "5");
    await publish(a, site.siteId);
    const got = await waiting;
    expect([got.status, got.body.article?.id]).toEqual([200, a]);

    // A client that goes away ends its long poll: the claim stops trying at once.
    const gone = new AbortController();
    const started = Date.now();
    const abandoned = claimRoute(
      new Request(`${TEST_ORIGIN}/api/connector/v1/jobs/claim?wait=25`, {
        method: "POST",
        headers: { authorization: `Bearer ${site.connectorToken}` },
        signal: gone.signal,
      }),
    );
    setTimeout(() => gone.abort(), 100);
    expect((await abandoned).status).toBe(204);
    expect(Date.now() - started).toBeLessThan(5_000);

    // Concurrent claimants never share a job: two due jobs, four claims at once → two jobs and two 204s.
    for (const title of ["Race one", "Race two"]) await publish(await approvedArticle(title), site.siteId);
    const race = await Promise.all([1, 2, 3, 4].map(() => claim(site.connectorToken)));
    expect(race.map((r) => r.status).sort()).toEqual([200, 200, 204, 204]);
    expect(new Set(race.filter((r) => r.status === 200).map((r) => r.body.id)).size).toBe(2);
  });
});
