import { and, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { articles, events, generationJobs, operations, strategistTopics, walletLedger, wallets } from "@/db/schema";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { startOperationLoop } from "@/server/jobs/operation-loop";
import { runOperation } from "@/server/jobs/run-operation";
import { issueKey } from "@/server/services/keys/keys";
import { claimOperation } from "@/server/services/operations/operation-runs";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import { setLanguageModel } from "@/server/services/ai-seller/current-model";
import { ModelUnavailableError } from "@/server/services/ai-seller/language-model";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

// The `article-generation` preview (issue 72): the editorial profile (GET/PUT), paid generation jobs on
// the operation engine (hold, charge, release, limits, timeout, failure), the topic's moves, the events,
// test mode, and the Planned 404 without the flag. Answers are checked against the preview's document
// (`call` with `preview`). Runs on PGlite and, with DATABASE_URL, on PostgreSQL.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "article-generation" as const };
const PROFILE = {
  niche: "running shoes",
  audience: "beginners",
  tone: "friendly",
  avoid: ["cheap"],
  example_text: "We test every pair on our own trails before it reaches the shelf.",
  locale: "en",
};

const putProfile = (key: string, json: unknown) => call("PUT", "/articles/editorial-profile", { key, json, ...P });
const order = (key: string, json: unknown, idempotencyKey: string | undefined = `gen-${++n}-${Date.now()}`) =>
  call("POST", "/articles/generation-jobs", { key, json, idempotencyKey, ...P });
const job = (key: string, id: string) => call("GET", `/articles/generation-jobs/${id}`, { key, ...P });
const eventsOf = (tenantId: string, type: string) =>
  db.db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));
const walletOf = async (tenantId: string, livemode = true) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, livemode)))
  )[0]!;
const ledgerOf = (operationId: string) =>
  db.db.select().from(walletLedger).where(eq(walletLedger.operationId, operationId));

async function generationTenant(o: { profile?: boolean; balanceMinor?: bigint } = {}): Promise<TenantFixture> {
  const x = await makeTenant(db.db, { balanceMinor: o.balanceMinor });
  await setPreview(db.db, x.tenantId, "article-generation", true);
  await setLimitOverride(db.db, { keyId: x.keyId }, { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 });
  if (o.profile !== false) expect((await putProfile(x.key, PROFILE)).status).toBe(200);
  return x;
}

async function topic(owner: TenantFixture, status = "proposed", title = "Trail shoes for wet autumn"): Promise<string> {
  const [row] = await db.db
    .insert(strategistTopics)
    .values({ tenantId: owner.tenantId, title, source: "manual", status, trendScore: 0.7 })
    .returning({ id: strategistTopics.id });
  return row!.id;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await generationTenant();
});
afterEach(() => setLanguageModel(undefined));
afterAll(async () => db.drop());

describe("without the preview", () => {
  it("answers every route with the Planned 404 before authentication, and keeps the v1 document", async () => {
    const off = await makeTenant(db.db);
    for (const key of [off.key, "pk_live_not_a_key"])
      for (const [method, path, json] of [
        ["GET", "/articles/editorial-profile", undefined],
        ["PUT", "/articles/editorial-profile", PROFILE],
        ["POST", "/articles/generation-jobs", { keyword: "x" }],
        ["GET", `/articles/generation-jobs/${crypto.randomUUID()}`, undefined],
      ] as const) {
        const r = await call(method, path, { key, json, idempotencyKey: `off-${++n}` });
        expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, "not_found"]);
      }
    type Doc = { paths: Record<string, Record<string, unknown>> };
    const doc = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as Doc;
    const base = await doc("");
    const preview = await doc("?preview=article-generation");
    expect(base.paths["/articles/editorial-profile"]).toBeUndefined();
    expect(base.paths["/articles/generation-jobs"]).toBeUndefined();
    expect(Object.keys(preview.paths["/articles/editorial-profile"] ?? {}).sort()).toEqual(["get", "put"]);
    expect(preview.paths["/articles/generation-jobs"]?.post).toBeDefined();
    expect(preview.paths["/articles/generation-jobs/{id}"]?.get).toBeDefined();
  });
});

describe("the editorial profile", () => {
  it("starts empty, is replaced whole by PUT, and refuses bad fields with their pointers", async () => {
    const x = await generationTenant({ profile: false });
    const empty = await call("GET", "/articles/editorial-profile", { key: x.key, ...P });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ niche: null, topic_sources: [], avoid: [], updated_at: null });

    const bad = await putProfile(x.key, {
      niche: "shoes",
      topic_sources: ["own_site", "tv"],
      source_urls: ["ftp://example.com/a"],
      avoid: ["x".repeat(101)],
      locale: "English",
    });
    expect([bad.status, bad.body.code]).toEqual([422, "validation_failed"]);
    const fields = (bad.body.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(["/avoid/0", "/locale", "/source_urls/0", "/topic_sources/1"]);
    expect((await call("GET", "/articles/editorial-profile", { key: x.key, ...P })).body.updated_at).toBeNull();

    const saved = await putProfile(x.key, {
      ...PROFILE,
      avoid: ["cheap", "Cheap", "budget"],
      topic_sources: ["wordstat", "urls"],
      source_urls: ["https://example.com/guide"],
      presentation: "  ",
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      niche: "running shoes",
      avoid: ["cheap", "budget"],
      topic_sources: ["wordstat", "urls"],
      source_urls: ["https://example.com/guide"],
      presentation: null,
    });
    expect(saved.body.updated_at).toEqual(expect.any(String));
    // A field left out is cleared.
    const replaced = await putProfile(x.key, { niche: "trail shoes" });
    expect(replaced.body).toMatchObject({ niche: "trail shoes", audience: null, avoid: [], example_text: null });
  });
});

describe("ordering an article", () => {
  it("is 409 editorial_profile_required without a niche, before any hold", async () => {
    const x = await generationTenant({ profile: false });
    const before = await walletOf(x.tenantId);
    const r = await order(x.key, { keyword: "trail shoes" });
    expect([r.status, r.body.code]).toEqual([409, "editorial_profile_required"]);
    const ops = await db.db.select().from(operations).where(eq(operations.tenantId, x.tenantId));
    expect(ops).toHaveLength(0);
    expect(await walletOf(x.tenantId)).toMatchObject({
      heldMinor: before.heldMinor,
      balanceMinor: before.balanceMinor,
    });
  });

  it("validates the order: topic_id or keyword, target_words 300-4,000, an Idempotency-Key", async () => {
    for (const [json, field] of [
      [{}, "/keyword"],
      [{ keyword: "a", topic_id: crypto.randomUUID() }, "/topic_id"],
      [{ keyword: "a", target_words: 299 }, "/target_words"],
      [{ keyword: "a", target_words: 4001 }, "/target_words"],
      [{ keyword: "a", extra: 1 }, ""],
    ] as const) {
      const r = await order(t.key, json);
      expect([r.status, r.body.code], JSON.stringify(json)).toEqual([422, "validation_failed"]);
      if (field) expect((r.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    }
    const noKey = await call("POST", "/articles/generation-jobs", { key: t.key, json: { keyword: "a" }, ...P });
    expect(noKey.status).toBe(400);
  });

  it("writes a draft from a keyword: 202, the engine runs it, the hold is charged and released once", async () => {
    const before = await walletOf(t.tenantId);
    const r = await order(t.key, { keyword: "waterproof trail shoes", target_words: 600 });
    expect(r.status).toBe(202);
    const op = r.body.operation;
    expect(op).toMatchObject({ type: "article.generation", status: "queued", resource: { type: "generation_job" } });
    const jobId = op.resource.id as string;
    const queued = await job(t.key, jobId);
    expect(queued.body).toMatchObject({
      id: jobId,
      status: "queued",
      keyword: "waterproof trail shoes",
      article_id: null,
    });
    expect((await walletOf(t.tenantId)).heldMinor).toBeGreaterThan(before.heldMinor);

    // A repeat with the same key answers the same operation: no second job, no second hold.
    const key = `gen-repeat-${Date.now()}`;
    const first = await order(t.key, { keyword: "trail socks" }, key);
    const again = await order(t.key, { keyword: "trail socks" }, key);
    expect(again.status).toBe(202);
    expect(again.body.operation.id).toBe(first.body.operation.id);
    expect(await ledgerOf(first.body.operation.id)).toHaveLength(1);

    expect(await runOperation(db.db, op.id)).toEqual({ status: "succeeded", final: true });
    const done = await job(t.key, jobId);
    expect(done.body).toMatchObject({ status: "succeeded", error: null, usage: { model: "offline-writer-1" } });
    const articleId = done.body.article_id as string;
    const [a] = await db.db.select().from(articles).where(eq(articles.id, articleId));
    expect(a).toMatchObject({ status: "draft", keyword: "waterproof trail shoes", locale: "en", livemode: true });
    expect(a!.bodyHtml).toContain("<h2");
    expect(a!.bodyHtml!.toLowerCase()).not.toContain("cheap");
    expect(a!.wordCount).toBeGreaterThan(400);
    const read = await call("GET", `/articles/${articleId}`, { key: t.key });
    expect(read.body).toMatchObject({ id: articleId, status: "draft", title: a!.title });

    const ops = await call("GET", `/operations/${op.id}`, { key: t.key });
    expect(ops.body.operation).toMatchObject({
      status: "succeeded",
      resource: { type: "generation_job", id: jobId },
      usage: done.body.usage,
    });
    const rows = await ledgerOf(op.id);
    expect(rows.map((l) => l.kind).sort()).toEqual(["charge", "hold", "release"]);
    expect(rows.reduce((s, l) => s + l.holdMinor, 0n)).toBe(0n);
    const charge = -rows.find((l) => l.kind === "charge")!.amountMinor;
    expect(done.body.usage.cost.amount).toBe((Number(charge) / 100).toFixed(2));
    const ready = await eventsOf(t.tenantId, "article.ready");
    expect(ready.map((e) => e.data)).toContainEqual({ type: "article", article_id: articleId });
    const completed = (await eventsOf(t.tenantId, "operation.completed")).filter(
      (e) => (e.data as { id: string }).id === op.id,
    );
    expect(completed).toHaveLength(1);
    // Running it again changes nothing.
    expect(await runOperation(db.db, op.id)).toEqual({ status: "succeeded", final: true });
    expect(await ledgerOf(op.id)).toHaveLength(3);
  });

  it("waits for the article with `wait`: 200 with the finished operation; a repeat answers it too", async () => {
    const loop = startOperationLoop(db.db, { pollMs: 20 });
    try {
      const key = `gen-wait-${Date.now()}`;
      const r = await call("POST", "/articles/generation-jobs?wait=10", {
        key: t.key,
        json: { keyword: "wool socks for winter runs", target_words: 300 },
        idempotencyKey: key,
        ...P,
      });
      expect(r.status).toBe(200);
      expect(r.body.operation).toMatchObject({ status: "succeeded", resource: { type: "generation_job" } });
      const again = await call("POST", "/articles/generation-jobs", {
        key: t.key,
        json: { keyword: "wool socks for winter runs", target_words: 300 },
        idempotencyKey: key,
        ...P,
      });
      expect([again.status, again.body.operation.id]).toEqual([200, r.body.operation.id]);
      const bad = await call("POST", "/articles/generation-jobs?wait=21", {
        key: t.key,
        json: { keyword: "x" },
        idempotencyKey: `${key}-bad`,
        ...P,
      });
      expect([bad.status, bad.body.errors?.[0]?.field]).toEqual([422, "/wait"]);
    } finally {
      await loop.stop();
    }
  });

  it("moves a topic generating → generated with generated_article_id; refuses other topics", async () => {
    const id = await topic(t, "approved");
    const r = await order(t.key, { topic_id: id, title: "Autumn trail shoes, tested" });
    expect(r.status).toBe(202);
    const [generating] = await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, id));
    expect(generating!.status).toBe("generating");
    // Generating already: not orderable again.
    expect((await order(t.key, { topic_id: id })).body.code).toBe("invalid_state");
    await runOperation(db.db, r.body.operation.id);
    const done = await job(t.key, r.body.operation.resource.id);
    expect(done.body).toMatchObject({ status: "succeeded", topic_id: id, keyword: null });
    const [generated] = await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, id));
    expect(generated).toMatchObject({ status: "generated", generatedArticleId: done.body.article_id });
    const [a] = await db.db.select().from(articles).where(eq(articles.id, done.body.article_id));
    expect(a).toMatchObject({ title: "Autumn trail shoes, tested", keyword: "Trail shoes for wet autumn" });

    const rejected = await topic(t, "rejected");
    const refused = await order(t.key, { topic_id: rejected });
    expect([refused.status, refused.body.code]).toEqual([409, "invalid_state"]);
    const other = await generationTenant();
    const foreign = await topic(other);
    const r404 = await order(t.key, { topic_id: foreign });
    expect([r404.status, r404.body.code]).toEqual([404, "not_found"]);
  });

  it("a writer that fails: the job and operation fail, the topic goes back, the hold is released", async () => {
    const catalog = catalogModel();
    setLanguageModel({
      ...catalog,
      write: async () => {
        throw new ModelUnavailableError("the writer is down");
      },
    });
    const id = await topic(t, "proposed", "Socks for long runs");
    const before = await walletOf(t.tenantId);
    const r = await order(t.key, { topic_id: id });
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "failed", final: true });
    const failed = await job(t.key, r.body.operation.resource.id);
    expect(failed.body).toMatchObject({ status: "failed", article_id: null, error: { code: "ai_unavailable" } });
    const [back] = await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, id));
    expect(back!.status).toBe("proposed");
    const op = (await call("GET", `/operations/${r.body.operation.id}`, { key: t.key })).body.operation;
    expect(op).toMatchObject({ status: "failed", error: { code: "ai_unavailable" } });
    expect((await ledgerOf(op.id)).map((l) => l.kind).sort()).toEqual(["hold", "release"]);
    expect(await walletOf(t.tenantId)).toMatchObject({
      balanceMinor: before.balanceMinor,
      heldMinor: before.heldMinor,
    });
    const failedEvents = await eventsOf(t.tenantId, "article.generation.failed");
    expect(failedEvents.map((e) => e.data)).toContainEqual({
      type: "generation_job",
      generation_job_id: failed.body.id,
      operation_id: op.id,
    });
  });

  it("a generation past its deadline fails with operation_timeout, its topic back, its hold released", async () => {
    const id = await topic(t, "approved", "Gaiters for muddy trails");
    const r = await order(t.key, { topic_id: id });
    await db.db
      .update(operations)
      .set({ deadlineAt: new Date(Date.now() - 1000) })
      .where(eq(operations.id, r.body.operation.id));
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "failed", final: true });
    const failed = await job(t.key, r.body.operation.resource.id);
    expect(failed.body.error.code).toBe("operation_timeout");
    expect((await ledgerOf(r.body.operation.id)).map((l) => l.kind).sort()).toEqual(["hold", "release"]);
    expect((await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, id)))[0]!.status).toBe(
      "approved",
    );
    const emitted = await eventsOf(t.tenantId, "article.generation.failed");
    expect(emitted.map((e) => e.data)).toContainEqual(expect.objectContaining({ generation_job_id: failed.body.id }));
  });

  it("gives up a writer still writing at the deadline, and renews the lease while it writes", async () => {
    const catalog = catalogModel();
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    setLanguageModel({ ...catalog, write: async (b) => (await hung, catalog.write(b)) });
    const late = await order(t.key, { keyword: "never finished" });
    await db.db
      .update(operations)
      .set({ deadlineAt: new Date(Date.now() + 300) })
      .where(eq(operations.id, late.body.operation.id));
    expect(await runOperation(db.db, late.body.operation.id)).toEqual({ status: "failed", final: true });
    expect((await job(t.key, late.body.operation.resource.id)).body.error.code).toBe("operation_timeout");
    release();

    // A write of 900 ms under a lease of 200 ms: the run renews it, so another worker cannot take it over.
    setLanguageModel({
      ...catalog,
      write: async (b) => (await new Promise((r) => setTimeout(r, 900)), catalog.write(b)),
    });
    const slow = await order(t.key, { keyword: "slow but sure" });
    const run = runOperation(db.db, slow.body.operation.id, { leaseMs: 200 });
    await new Promise((r) => setTimeout(r, 500));
    expect(await claimOperation(db.db, slow.body.operation.id, 200)).toBeNull();
    expect(await run).toEqual({ status: "succeeded", final: true });
    const [op] = await db.db.select().from(operations).where(eq(operations.id, slow.body.operation.id));
    expect(op!.attempts).toBe(1);
  });

  it("refuses a fourth unfinished generation (402 spend_limit_reached) and an order the wallet cannot hold", async () => {
    const x = await generationTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await order(x.key, { keyword: `k${i}` });
      expect(r.status).toBe(202);
      ids.push(r.body.operation.id);
    }
    const held = (await walletOf(x.tenantId)).heldMinor;
    const fourth = await order(x.key, { keyword: "k3" });
    expect([fourth.status, fourth.body.code]).toEqual([402, "spend_limit_reached"]);
    expect(fourth.body.detail).toContain("3 simultaneous article.generation");
    expect(await db.db.select().from(operations).where(eq(operations.tenantId, x.tenantId))).toHaveLength(3);
    expect((await walletOf(x.tenantId)).heldMinor).toBe(held);
    await runOperation(db.db, ids[0]!);
    expect((await order(x.key, { keyword: "k3" })).status).toBe(202);

    const poor = await generationTenant({ balanceMinor: 1n });
    const refused = await order(poor.key, { keyword: "k" });
    expect([refused.status, refused.body.code]).toEqual([402, "insufficient_funds"]);
    expect(await db.db.select().from(generationJobs).where(eq(generationJobs.tenantId, poor.tenantId))).toHaveLength(0);
  });
});

describe("test mode", () => {
  it("a sandbox key has the sandbox's own profile and jobs, paid from the sandbox wallet; live never sees them", async () => {
    const x = await generationTenant();
    const sk = await sandboxKey(db.db, x);
    const profile = await call("GET", "/articles/editorial-profile", { key: sk, ...P });
    expect(profile.body.niche).not.toBe(PROFILE.niche);
    expect((await putProfile(sk, { niche: "sandbox shoes" })).status).toBe(200);
    expect((await call("GET", "/articles/editorial-profile", { key: x.key, ...P })).body.niche).toBe(PROFILE.niche);

    const liveBefore = await walletOf(x.tenantId, true);
    // A test key never reaches the configured model: a live writer that throws is never asked.
    setLanguageModel({
      ...catalogModel(),
      write: async () => {
        throw new Error("a test key reached the live writer");
      },
    });
    const r = await order(sk, { keyword: "sandbox trail shoes" });
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    const done = await job(sk, r.body.operation.resource.id);
    expect(done.body.status).toBe("succeeded");
    expect((await job(x.key, done.body.id)).status).toBe(404);
    const [a] = await db.db.select().from(articles).where(eq(articles.id, done.body.article_id));
    expect(a!.livemode).toBe(false);
    expect(await walletOf(x.tenantId, true)).toMatchObject({ balanceMinor: liveBefore.balanceMinor });
    const ledger = await ledgerOf(r.body.operation.id);
    expect(ledger.map((l) => l.kind).sort()).toEqual(["charge", "hold", "release"]);
    expect(ledger.every((l) => l.livemode === false)).toBe(true);
    expect(done.body.usage.model).toBe("offline-writer-1");

    // `test:ai_unavailable` as the keyword makes a sandbox generation fail as an unavailable writer does.
    const magic = await order(sk, { keyword: "test:ai_unavailable" });
    await runOperation(db.db, magic.body.operation.id);
    expect((await job(sk, magic.body.operation.resource.id)).body.error.code).toBe("ai_unavailable");
    const sandboxEvents = await db.db
      .select()
      .from(events)
      .where(
        and(eq(events.tenantId, x.tenantId), inArray(events.type, ["article.ready", "article.generation.failed"])),
      );
    expect(sandboxEvents.map((e) => [e.type, e.livemode]).sort()).toEqual([
      ["article.generation.failed", false],
      ["article.ready", false],
    ]);
  });

  it("a test key without the sandbox works in live data, free, with the offline writer", async () => {
    const x = await generationTenant();
    const k = await issueKey(db.db, { integrationId: x.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    setLanguageModel({
      ...catalogModel(),
      write: async () => {
        throw new Error("a test key reached the live writer");
      },
    });
    const r = await order(k.key, { keyword: "test key shoes" });
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    const done = await job(k.key, r.body.operation.resource.id);
    expect(done.body).toMatchObject({
      status: "succeeded",
      usage: { model: "offline-writer-1", cost: { amount: "0.00" } },
    });
    const [a] = await db.db.select().from(articles).where(eq(articles.id, done.body.article_id));
    expect(a!.livemode).toBe(true);
    expect(await ledgerOf(r.body.operation.id)).toHaveLength(0);
    const ready = (await eventsOf(x.tenantId, "article.ready")).filter((e) => e.data.article_id === a!.id);
    expect(ready.map((e) => e.livemode)).toEqual([true]);
  });
});
