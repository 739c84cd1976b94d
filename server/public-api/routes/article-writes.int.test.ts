import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { articles, events, publicationJobs, sites } from "@/db/schema";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { createSite } from "@/server/services/articles/sites";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { createClient, isApiError } from "@platform/sdk";
import { call, inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

// The `articles-writes` preview (issue 71 part A): PATCH /articles/{id} (If-Match when sent), approve,
// publish (target none → handed_off → PATCH published_url; target connector → a job per article version)
// and GET /sites; every route answers the Planned 404 without the flag. Runs on PGlite and, with
// DATABASE_URL, on PostgreSQL.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "articles-writes" as const };
const MIN = 60_000;

const get = (key: string, id: string) => call("GET", `/articles/${id}`, { key, ...P });
const patch = (key: string, id: string, json: unknown, ifMatch?: string) =>
  call("PATCH", `/articles/${id}`, { key, json, headers: ifMatch === undefined ? {} : { "if-match": ifMatch }, ...P });
const approve = (key: string, id: string) => call("POST", `/articles/${id}/approve`, { key, ...P });
const publish = (key: string, id: string, json: unknown, idempotencyKey = `aw-${++n}-${Date.now()}`) =>
  call("POST", `/articles/${id}/publish`, { key, json, idempotencyKey, ...P });
const jobsOf = (articleId: string) =>
  db.db.select().from(publicationJobs).where(eq(publicationJobs.articleId, articleId));
const eventsOf = (tenantId: string, type: string) =>
  db.db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));

/** An article of `owner`'s own blog, written directly (status, body and mode as given). */
async function article(
  owner: TenantFixture,
  o: { status?: string; html?: string | null; livemode?: boolean; title?: string } = {},
): Promise<string> {
  const [a] = await db.db
    .insert(articles)
    .values({
      tenantId: owner.tenantId,
      livemode: o.livemode ?? true,
      title: o.title ?? "Chairs for a small office",
      status: o.status ?? "draft",
      bodyHtml: o.html === undefined ? "<p>Four chairs that fit a small office.</p>" : o.html,
      updatedAt: new Date(),
    })
    .returning({ id: articles.id });
  return a!.id;
}

/** A site of `owner` in `livemode`, its connector last seen `seenAgoMs` ago (null: never). */
async function site(
  owner: TenantFixture,
  seenAgoMs: number | null,
  o: { draftsOnly?: boolean; livemode?: boolean } = {},
) {
  const s = await createSite(
    db.db,
    { tenantId: owner.tenantId, livemode: o.livemode ?? true },
    { domain: `blog${++n}.example.com`, draftsOnly: o.draftsOnly ?? false },
  );
  // Each site n ms later than written (n grows with every site): the embedded database writes two sites
  // within one millisecond, and `GET /sites` orders equal `created_at` by id (random): a flaky order.
  await db.db
    .update(sites)
    .set({
      createdAt: sql`${sites.createdAt} + ${n} * interval '1 millisecond'`,
      ...(seenAgoMs !== null ? { lastSeenAt: new Date(Date.now() - seenAgoMs) } : {}),
    })
    .where(eq(sites.id, s.siteId));
  return s.siteId;
}

async function writesTenant(): Promise<TenantFixture> {
  const x = await makeTenant(db.db);
  await setPreview(db.db, x.tenantId, "articles-writes", true);
  await setLimitOverride(db.db, { keyId: x.keyId }, { readPerMin: 100_000, writePerMin: 100_000 });
  return x;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await writesTenant();
});
afterAll(async () => db.drop());

describe("without the preview", () => {
  it("answers every route with the Planned 404 before authentication, and keeps the v1 document", async () => {
    const off = await makeTenant(db.db);
    const id = await article(off, { status: "approved" });
    for (const key of [off.key, "pk_live_not_a_key"])
      for (const [method, path, json] of [
        ["PATCH", `/articles/${id}`, { title: "x" }],
        ["POST", `/articles/${id}/approve`, undefined],
        ["POST", `/articles/${id}/publish`, { target: "none" }],
        ["GET", "/sites", undefined],
      ] as const) {
        const r = await call(method, path, { key, json });
        expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, "not_found"]);
      }
    const read = await call("GET", `/articles/${id}`, { key: off.key });
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBeNull();
    expect((await db.db.select().from(articles).where(eq(articles.id, id)))[0]!.version).toBe(1);

    type Doc = {
      paths: Record<string, Record<string, { parameters?: { $ref?: string }[] }>>;
      components: { parameters: Record<string, { required?: boolean }> };
    };
    const doc = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as Doc;
    const base = await doc("");
    const preview = await doc("?preview=articles-writes");
    expect(base.paths["/articles/{id}"]?.patch).toBeUndefined();
    expect(base.paths["/sites"]).toBeUndefined();
    const baseGet = JSON.stringify(base.paths["/articles/{id}"]?.get);
    expect(baseGet).toContain('"external"');
    for (const absent of ["handed_off", "ArticleWritten", '"none"', "ETag"]) expect(baseGet).not.toContain(absent);
    expect(preview.paths["/sites"]?.get).toBeDefined();
    const previewGet = JSON.stringify(preview.paths["/articles/{id}"]?.get);
    for (const present of ["ArticleWritten", "ETag"]) expect(previewGet).toContain(present);
    const patchParams = JSON.stringify(preview.paths["/articles/{id}"]?.patch?.parameters);
    expect(patchParams).toContain("#/components/parameters/IfMatchOptional");
    expect(patchParams).not.toContain('#/components/parameters/IfMatch"');
    expect(preview.components.parameters.IfMatchOptional?.required ?? false).toBe(false);
  });
});

describe("PATCH /articles/{id}", () => {
  it("honours If-Match when sent, sanitizes content on write, changes the ETag on every change", async () => {
    const id = await article(t, { status: "approved" });
    const read = await get(t.key, id);
    const e1 = read.headers.get("etag")!;
    expect(e1).toMatch(/^"1-[A-Za-z0-9_-]{22}"$/);

    const a = await patch(t.key, id, { title: "Chairs, revised" });
    const e2 = a.headers.get("etag")!;
    expect([a.status, a.body.title, a.body.status]).toEqual([200, "Chairs, revised", "approved"]);
    expect(e2).not.toBe(e1);
    expect((await get(t.key, id)).headers.get("etag")).toBe(e2);

    const stale = await patch(t.key, id, { title: "Lost update" }, e1);
    expect([stale.status, stale.body.code, stale.body.etag]).toEqual([412, "precondition_failed", e2]);
    expect((await patch(t.key, id, { title: "x" }, "not-a-tag")).status).toBe(400);

    const b = await patch(
      t.key,
      id,
      {
        content:
          '<h2 onclick="steal()">Sizes</h2><script>alert(1)</script><a href="javascript:alert(2)">x</a><p>Two words</p>',
        slug: "office-chairs",
        meta_title: "Office chairs",
      },
      e2,
    );
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    const e3 = b.headers.get("etag")!;
    expect(e3).not.toBe(e2);
    const stored = (await db.db.select().from(articles).where(eq(articles.id, id)))[0]!;
    for (const bad of ["<script", "onclick", "javascript:"]) expect(stored.bodyHtml).not.toContain(bad);
    expect(stored.bodyHtml).toContain("<h2>Sizes</h2>");
    expect(stored).toMatchObject({ slug: "office-chairs", metaTitle: "Office chairs", status: "approved", version: 3 });
    expect(b.body.word_count).toBe(stored.wordCount);

    const nothing = await patch(t.key, id, {});
    expect([nothing.status, nothing.headers.get("etag")]).toEqual([200, e3]);
    const star = await patch(t.key, id, { meta_description: "Chairs" }, "*");
    expect(star.status).toBe(200);
    expect(star.headers.get("etag")).not.toBe(e3);

    const big = await patch(t.key, id, { content: `<p>${"a".repeat(300 * 1024)}</p>` });
    expect([big.status, big.body.code]).toEqual([413, "payload_too_large"]);
    const invalid = await patch(t.key, id, { slug: "Not A Slug", title: "" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["/slug", "/title"]);
    const early = await patch(t.key, id, { published_url: "https://shop.example.ru/blog/chairs" });
    expect([early.status, early.body.code]).toEqual([409, "invalid_state"]);
    expect((await patch(t.key, crypto.randomUUID(), { title: "x" })).status).toBe(404);
    const foreign = await article(await makeTenant(db.db));
    expect((await patch(t.key, foreign, { title: "x" })).status).toBe(404);
  });
});

describe("POST /articles/{id}/approve", () => {
  it("moves draft and review to approved, refuses every other status with 409", async () => {
    for (const status of ["draft", "review"]) {
      const id = await article(t, { status });
      const before = (await get(t.key, id)).headers.get("etag");
      const r = await approve(t.key, id);
      expect([r.status, r.body.status], status).toEqual([200, "approved"]);
      expect(r.headers.get("etag")).not.toBe(before);
    }
    for (const status of ["approved", "published", "rejected", "transferred", "external", "handed_off"]) {
      const r = await approve(t.key, await article(t, { status }));
      expect([r.status, r.body.code], status).toEqual([409, "invalid_state"]);
    }
    expect((await approve(t.key, crypto.randomUUID())).status).toBe(404);
  });
});

describe("POST /articles/{id}/publish", () => {
  it("target none hands the article off (article.ready), then published_url publishes it (article.published)", async () => {
    const id = await article(t, { status: "draft" });
    expect((await publish(t.key, id, { target: "none" })).body.code).toBe("invalid_state");
    await approve(t.key, id);
    const h = await publish(t.key, id, { target: "none" }, `handoff-${id}`);
    expect(h.status, JSON.stringify(h.body)).toBe(200);
    expect(h.body.status).toBe("handed_off");
    const repeat = await publish(t.key, id, { target: "none" }, `handoff-${id}`);
    expect([repeat.status, repeat.body, repeat.headers.get("etag")]).toEqual([200, h.body, h.headers.get("etag")]);
    expect(h.body.publication).toEqual({ target: "none", state: "queued", published_url: null, error: null });
    const readies = (await eventsOf(t.tenantId, "article.ready")).filter((e) => e.data.article_id === id);
    expect(readies).toHaveLength(1);
    expect(readies[0]).toMatchObject({ livemode: true, data: { type: "article", article_id: id } });
    expect((await get(t.key, id)).body.status).toBe("handed_off");
    const list = await call("GET", "/articles?status=approved", { key: t.key, ...P });
    expect(list.body.data.map((a: { id: string }) => a.id)).not.toContain(id);
    expect((await call("GET", "/articles", { key: t.key, ...P })).body.data.map((a: { id: string }) => a.id)).toContain(
      id,
    );
    // The preview's filter asks for handed-off articles; a tenant without the preview is refused the value.
    const handedOff = await call("GET", "/articles?status=handed_off", { key: t.key, ...P });
    expect(handedOff.status).toBe(200);
    expect(handedOff.body.data.map((a: { id: string }) => a.id)).toContain(id);
    expect(handedOff.body.data.every((a: { status: string }) => a.status === "handed_off")).toBe(true);
    const off = await makeTenant(db.db);
    const refused = await call("GET", "/articles?status=handed_off", { key: off.key });
    expect([refused.status, refused.body.errors?.[0]?.field]).toEqual([422, "/status"]);

    const url = "https://shop.example.ru/blog/chairs";
    const p = await patch(t.key, id, { published_url: url }, h.headers.get("etag")!);
    expect([p.status, p.body.status]).toEqual([200, "published"]);
    expect(p.body.publication).toEqual({ target: "none", state: "applied", published_url: url, error: null });
    expect(p.body.published_at).not.toBeNull();
    const [pub] = (await eventsOf(t.tenantId, "article.published")).filter((e) => e.data.article_id === id);
    expect(pub!.data).toEqual({ type: "article", article_id: id, published_url: url });
    const again = await patch(t.key, id, { published_url: url });
    expect([again.status, again.body.code]).toEqual([409, "invalid_state"]);
  });

  it("target connector queues one job per article version for a working site, with the spec's 404/409/422", async () => {
    const working = await site(t, 1000);
    const id = await article(t, { status: "approved" });
    const c = (json: object) => publish(t.key, id, { target: "connector", ...json });

    expect((await c({ publish_mode: "publish" })).body.errors[0].field).toBe("/site_id");
    expect((await c({ site_id: working })).body.errors[0].field).toBe("/publish_mode");
    expect((await c({ site_id: working, publish_mode: "later" })).status).toBe(422);
    expect((await c({ site_id: crypto.randomUUID(), publish_mode: "publish" })).status).toBe(404);
    const foreignSite = await site(await makeTenant(db.db), 1000);
    expect((await c({ site_id: foreignSite, publish_mode: "publish" })).status).toBe(404);
    for (const seen of [null, 6 * MIN]) {
      const r = await c({ site_id: await site(t, seen), publish_mode: "publish" });
      expect([r.status, r.body.code], `seen ${seen}`).toEqual([409, "invalid_state"]);
    }
    const draft = await publish(t.key, await article(t), {
      target: "connector",
      site_id: working,
      publish_mode: "draft",
    });
    expect([draft.status, draft.body.code]).toEqual([409, "invalid_state"]);
    const empty = await article(t, { status: "approved", html: " " });
    expect(
      (await publish(t.key, empty, { target: "connector", site_id: working, publish_mode: "draft" })).body.code,
    ).toBe("invalid_state");
    expect((await publish(t.key, crypto.randomUUID(), { target: "none" })).status).toBe(404);
    expect(await jobsOf(id)).toHaveLength(0);

    // Concurrent publishes of one version: the article's row lock lets one queue the job, the others answer it.
    const racing = await Promise.all(Array.from({ length: 5 }, () => c({ site_id: working, publish_mode: "publish" })));
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const first = racing[0]!;
    expect(first.body.publication).toEqual({ target: "connector", state: "queued", published_url: null, error: null });
    const same = await c({ site_id: working, publish_mode: "publish" });
    expect(same.status).toBe(200);
    let jobs = await jobsOf(id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      siteId: working,
      version: 1,
      state: "queued",
      publishMode: "publish",
      livemode: true,
    });

    await patch(t.key, id, { title: "Chairs, second version" });
    expect((await c({ site_id: working, publish_mode: "publish" })).status).toBe(200);
    jobs = await jobsOf(id);
    expect(jobs.map((j) => j.version).sort()).toEqual([1, 2]);

    const draftsOnly = await site(t, 0, { draftsOnly: true });
    await c({ site_id: draftsOnly, publish_mode: "publish" });
    expect((await jobsOf(id)).find((j) => j.siteId === draftsOnly)?.publishMode).toBe("draft");
    await db.db.update(sites).set({ revokedAt: new Date() }).where(eq(sites.id, draftsOnly));
    expect((await c({ site_id: draftsOnly, publish_mode: "publish" })).status).toBe(404);
  });

  it("refuses an article over the limits with 422 on /content (HTML 2,000,000 bytes, payload 3,000,000)", async () => {
    const working = await site(t, 0);
    const tooLong = await article(t, { status: "approved", html: `<p>${"a".repeat(2_000_000)}</p>` });
    const para = `<p>${"word ".repeat(19)}</p>`;
    const heavy = await article(t, { status: "approved", html: para.repeat(Math.floor(1_900_000 / para.length)) });
    for (const id of [tooLong, heavy])
      for (const json of [{ target: "none" }, { target: "connector", site_id: working, publish_mode: "publish" }]) {
        const r = await publish(t.key, id, json);
        expect([r.status, r.body.code, r.body.errors?.[0]?.field], json.target).toEqual([
          422,
          "validation_failed",
          "/content",
        ]);
      }
    expect(await jobsOf(heavy)).toHaveLength(0);
  });
});

describe("GET /sites and test mode", () => {
  it("answers each site's status, and keeps a test key to the sandbox's sites and articles", async () => {
    const x = await writesTenant();
    const linked = await site(x, null, { draftsOnly: true });
    const ok = await site(x, 30_000);
    const late = await site(x, 6 * MIN);
    const gone = await site(x, 0);
    await db.db.update(sites).set({ revokedAt: new Date() }).where(eq(sites.id, gone));
    const r = await call("GET", "/sites", { key: x.key, ...P });
    expect(r.status).toBe(200);
    expect(r.body.data.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      [linked, "not_linked"],
      [ok, "working"],
      [late, "not_working"],
    ]);
    expect(r.body.data[0]).toMatchObject({ drafts_only: true, last_seen_at: null });
    expect(r.body.data[1].last_seen_at).toMatch(/Z$/);

    const test = await sandboxKey(db.db, x);
    const sandboxSite = await site(x, 0, { livemode: false });
    // The sandbox's own sample site (seeded, never linked) and the one made here; none of the live ones.
    const sandboxSites = (await call("GET", "/sites", { key: test, ...P })).body.data as {
      id: string;
      domain: string;
    }[];
    expect(sandboxSites.map((s) => [s.id, s.domain])).toEqual([
      [expect.any(String), "sandbox-site.example"],
      [sandboxSite, expect.any(String)],
    ]);
    const live = await article(x, { status: "approved" });
    const sandbox = await article(x, { status: "approved", livemode: false });
    expect((await get(test, live)).status).toBe(404);
    expect((await patch(test, live, { title: "x" })).status).toBe(404);
    expect((await approve(x.key, sandbox)).status).toBe(404);
    expect((await patch(x.key, sandbox, { title: "x" })).status).toBe(404);
    const viaLiveSite = await publish(test, sandbox, { target: "connector", site_id: ok, publish_mode: "draft" });
    expect(viaLiveSite.status).toBe(404);
    const s = await publish(test, sandbox, { target: "connector", site_id: sandboxSite, publish_mode: "draft" });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    expect((await jobsOf(sandbox))[0]).toMatchObject({ livemode: false, siteId: sandboxSite });
    expect((await publish(test, sandbox, { target: "none" })).body.status).toBe("handed_off");
    const [ready] = (await eventsOf(x.tenantId, "article.ready")).filter((e) => e.data.article_id === sandbox);
    expect(ready!.livemode).toBe(false);
  });
});

describe("the SDK (client.articlesWrites)", () => {
  it("reads with the etag, edits under If-Match, meets a 412, approves, hands off, confirms, lists sites", async () => {
    const client = createClient({
      baseUrl: `${TEST_ORIGIN}/api/public/v1`,
      apiKey: t.key,
      fetch: inProcessFetch({ preview: "articles-writes" }),
    });
    const id = await article(t);
    const read = await client.articlesWrites.get(id);
    const edited = await client.articlesWrites.update(id, { title: "From the SDK" }, { ifMatch: read.etag });
    expect([edited.article.title, edited.etag === read.etag]).toEqual(["From the SDK", false]);
    const stale = await client.articlesWrites.update(id, { title: "late" }, { ifMatch: read.etag }).catch((e) => e);
    expect(isApiError(stale) && stale.code).toBe("precondition_failed");
    expect((await client.articlesWrites.approve(id)).article.status).toBe("approved");
    expect((await client.articlesWrites.publish(id, { target: "none" })).article.status).toBe("handed_off");
    const done = await client.articlesWrites.update(id, { published_url: "https://shop.example.ru/blog/sdk" });
    expect(done.article.publication?.published_url).toBe("https://shop.example.ru/blog/sdk");
    expect((await client.articlesWrites.sites()).length).toBeGreaterThan(0);
  });
});
