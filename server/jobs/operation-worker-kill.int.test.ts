import type { ChildProcess } from "node:child_process";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { articles, events, generationJobs, messages, operations, walletLedger, wallets } from "@/db/schema";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { killProcess, startTsxProcess } from "@/server/testing/child-process";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// A worker killed mid-operation (issue 17, 5; issue 72 item 4 for article generations): the operations it
// had claimed (AI replies and generations) stay `running` under its lease with their holds open and nothing
// charged; once the lease runs out a restarted worker runs them, and each completes once, with its hold
// charged and released once and one reply or one article written. Needs PostgreSQL: the worker processes
// and the test share the database.

const pg = Boolean(process.env.DATABASE_URL);
const N = 6;
/** Article generations among the operations, beside the N replies. */
const G = 2;
// 5 s: renewed every third of it (server/jobs/leased-run.ts); at 2 s a restarted worker's run on a CI host
// busy with the browser lane could miss a renewal and be claimed a third time (attempts 3, seen once in CI).
const LEASE_MS = 5_000;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  if (!pg) return;
  db = await openTestDatabase();
});

/** A tenant of its own for each run of the test (CI retries a failed test once: it must start afresh). */
async function freshTenant(): Promise<void> {
  t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "conversation-writes", true);
  await setPreview(db.db, t.tenantId, "article-generation", true);
  await setLimitOverride(db.db, { tenantId: t.tenantId }, { paidConcurrency: N + G });
}
afterAll(async () => {
  if (!pg) return;
  await db.drop();
});

const startWorker = (delayMs: number) =>
  startTsxProcess("server/testing/operation-worker-process.ts", [db.url!, String(LEASE_MS), String(delayMs)], "ready");

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it.runIf(pg)(
  "a worker killed mid-operation: each operation completes once after a restart",
  { timeout: 120_000 },
  async () => {
    await freshTenant();
    const P = { preview: "conversation-writes" as const };
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const c = await call("POST", "/conversations", { key: t.key, json: { external_customer_id: `k-${i}` }, ...P });
      const r = await call("POST", `/conversations/${c.body.id}/messages`, {
        key: t.key,
        json: { content: `socks number ${i}` },
        idempotencyKey: `kill-${i}`,
        ...P,
      });
      expect(r.status).toBe(202);
      ids.push(r.body.operation.id);
    }
    const G_P = { preview: "article-generation" as const };
    await call("PUT", "/articles/editorial-profile", { key: t.key, json: { niche: "socks" }, ...G_P });
    const generations: string[] = [];
    for (let i = 0; i < G; i++) {
      const r = await call("POST", "/articles/generation-jobs", {
        key: t.key,
        json: { keyword: `wool socks ${i}`, target_words: 300 },
        idempotencyKey: `kill-gen-${i}`,
        ...G_P,
      });
      expect(r.status).toBe(202);
      generations.push(r.body.operation.id);
    }
    ids.push(...generations);
    const [before] = await db.db.select().from(wallets).where(eq(wallets.tenantId, t.tenantId));
    const ops = () => db.db.select().from(operations).where(inArray(operations.id, ids));

    // The first worker's model takes 60 s: it is killed while every run is in flight.
    const first = await startWorker(60_000);
    let second: ChildProcess | null = null;
    try {
      await waitFor(async () => (await ops()).every((o) => o.status === "running" && o.attempts === 1), 30_000);
      await killProcess(first);
      expect((await ops()).every((o) => o.holdOpen && o.chargedMinor === null)).toBe(true);
      const charges = () =>
        db.db
          .select()
          .from(walletLedger)
          .where(and(inArray(walletLedger.operationId, ids), eq(walletLedger.kind, "charge")));
      expect(await charges()).toHaveLength(0);

      second = await startWorker(0);
      await waitFor(async () => (await ops()).every((o) => o.status === "succeeded"), 40_000);
      const done = await ops();
      expect(done.map((o) => ({ attempts: o.attempts, holdOpen: o.holdOpen, lockedUntil: o.lockedUntil }))).toEqual(
        done.map(() => ({ attempts: 2, holdOpen: false, lockedUntil: null })),
      );
      const rows = await db.db.select().from(walletLedger).where(inArray(walletLedger.operationId, ids));
      for (const o of done) {
        const mine = rows.filter((l) => l.operationId === o.id);
        expect(mine.filter((l) => l.kind === "hold")).toHaveLength(1);
        expect(mine.filter((l) => l.kind === "charge")).toHaveLength(1);
        expect(mine.reduce((s, l) => s + l.holdMinor, 0n)).toBe(0n);
        expect(-mine.find((l) => l.kind === "charge")!.amountMinor).toBe(o.chargedMinor);
      }
      const charged = done.reduce((s, o) => s + o.chargedMinor!, 0n);
      const [after] = await db.db.select().from(wallets).where(eq(wallets.tenantId, t.tenantId));
      expect(after!.balanceMinor).toBe(before!.balanceMinor - charged);
      expect(after!.heldMinor).toBe(before!.heldMinor - done.reduce((s, o) => s + o.holdMinor, 0n));
      const replies = await db.db
        .select()
        .from(messages)
        .where(and(eq(messages.tenantId, t.tenantId), eq(messages.sender, "ai")));
      expect(replies).toHaveLength(N);
      const jobs = await db.db.select().from(generationJobs).where(inArray(generationJobs.operationId, generations));
      expect(jobs.map((j) => j.status)).toEqual(Array(G).fill("succeeded"));
      const written = await db.db.select().from(articles).where(eq(articles.tenantId, t.tenantId));
      expect(written.map((a) => a.id).sort()).toEqual(jobs.map((j) => j.articleId).sort());
      const completed = await db.db
        .select()
        .from(events)
        .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "operation.completed")));
      expect(completed).toHaveLength(N + G);
      expect(
        await db.db
          .select()
          .from(events)
          .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "article.ready"))),
      ).toHaveLength(G);
    } finally {
      await killProcess(first);
      if (second) await killProcess(second);
    }
  },
);
