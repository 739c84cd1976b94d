import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  events,
  products,
  strategistActions,
  strategistSessions,
  strategistTopics,
  walletLedger,
  wallets,
} from "@/db/schema";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { startOperationLoop } from "@/server/jobs/operation-loop";
import { runOperation } from "@/server/jobs/run-operation";
import { setClock } from "@/server/lib/clock";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import { setLanguageModel } from "@/server/services/ai-seller/current-model";
import { ModelUnavailableError } from "@/server/services/ai-seller/language-model";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { expireStrategistItems } from "@/server/services/strategist/decisions";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

// The `strategist` preview (issue 73): decisions on actions and topics (both state machines, expiry on a
// fake clock, duplicates, visibility), chat sessions and paid turns on the operation engine (hold, charge,
// release, one turn at a time under 20 parallel requests, wait, events, test mode), and the Planned 404
// without the flag. Answers are checked against the preview's document. PGlite, and PostgreSQL with
// DATABASE_URL.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "strategist" as const };
const DAY = 86_400_000;

const post = (
  key: string,
  path: string,
  json?: unknown,
  idempotencyKey: string | undefined = `s-${++n}-${Date.now()}`,
) => call("POST", path, { key, json, idempotencyKey, ...P });
const get = (key: string, path: string) => call("GET", path, { key, ...P });
const walletOf = async (tenantId: string, livemode = true) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, livemode)))
  )[0]!;
const holdsOf = async (tenantId: string) =>
  (
    await db.db
      .select()
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, tenantId), eq(walletLedger.kind, "hold")))
  ).length;
const ledgerOf = (operationId: string) =>
  db.db.select().from(walletLedger).where(eq(walletLedger.operationId, operationId));

async function strategistTenant(): Promise<TenantFixture> {
  const x = await makeTenant(db.db);
  await setPreview(db.db, x.tenantId, "strategist", true);
  await setLimitOverride(db.db, { keyId: x.keyId }, { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 });
  await db.db.insert(products).values([
    { tenantId: x.tenantId, code: "TRAIL-1", name: "Trail runner Storm", active: true, sort: 1 },
    { tenantId: x.tenantId, code: "ROAD-2", name: "Road racer Breeze", active: true, sort: 2 },
  ]);
  return x;
}

/** A session of the fixture's integration with one proposed action per title, written as a turn would. */
async function proposed(x: TenantFixture, ...titles: (string | null)[]): Promise<string[]> {
  const [s] = await db.db
    .insert(strategistSessions)
    .values({ tenantId: x.tenantId, integrationId: x.integrationId })
    .returning();
  const rows = await db.db
    .insert(strategistActions)
    .values(
      titles.map((title) => ({
        tenantId: x.tenantId,
        sessionId: s!.id,
        title,
        proposal: { rationale: "Leads from search grew", trend_score: 61, cluster_id: "trail" },
        expiresAt: new Date(Date.now() + 7 * DAY),
      })),
    )
    .returning({ id: strategistActions.id });
  return rows.map((r) => r.id);
}

async function topic(x: TenantFixture, status = "proposed", title = `Topic ${++n}`, expiresAt?: Date): Promise<string> {
  const [row] = await db.db
    .insert(strategistTopics)
    .values({
      tenantId: x.tenantId,
      title,
      source: "planner",
      status,
      expiresAt: expiresAt ?? new Date(Date.now() + DAY),
    })
    .returning({ id: strategistTopics.id });
  return row!.id;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await strategistTenant();
});
afterEach(() => {
  setLanguageModel(undefined);
  setClock(undefined);
});
afterAll(async () => db.drop());

describe("without the preview", () => {
  it("answers every route with the Planned 404 before authentication; the v1 document lacks them", async () => {
    const off = await makeTenant(db.db);
    const id = crypto.randomUUID();
    for (const key of [off.key, "pk_live_not_a_key"])
      for (const [method, path] of [
        ["POST", `/strategist/actions/${id}/confirm`],
        ["POST", `/strategist/actions/${id}/cancel`],
        ["POST", `/strategist/topics/${id}/approve`],
        ["POST", `/strategist/topics/${id}/reject`],
        ["POST", "/strategist/chat/sessions"],
        ["GET", `/strategist/chat/sessions/${id}`],
        ["POST", `/strategist/chat/sessions/${id}/turns`],
      ] as const) {
        const r = await call(method, path, {
          key,
          json: method === "POST" ? { content: "hi" } : undefined,
          idempotencyKey: `off-${++n}`,
        });
        expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, "not_found"]);
      }
    type Doc = { paths: Record<string, Record<string, unknown>> };
    const doc = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as Doc;
    const base = await doc("");
    const preview = await doc("?preview=strategist");
    expect(base.paths["/strategist/chat/sessions/{id}/turns"]).toBeUndefined();
    expect(base.paths["/strategist/actions/{id}/confirm"]).toBeUndefined();
    for (const p of [
      "/strategist/actions/{id}/confirm",
      "/strategist/actions/{id}/cancel",
      "/strategist/topics/{id}/approve",
      "/strategist/topics/{id}/reject",
      "/strategist/chat/sessions",
      "/strategist/chat/sessions/{id}/turns",
    ])
      expect(preview.paths[p]?.post, p).toBeDefined();
    expect(preview.paths["/strategist/chat/sessions/{id}"]?.get).toBeDefined();
  });
});

describe("decisions on actions", () => {
  it("confirm executes into a topic; every other move from a decided action is 409 invalid_state", async () => {
    const [a, b] = await proposed(t, "Choosing trail shoes for winter", "Road racing for beginners");
    const done = await post(t.key, `/strategist/actions/${a}/confirm`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: a, status: "executed", error: null });
    expect(done.body.decided_at).toEqual(expect.any(String));
    const topicId = done.body.result.topic_id as string;
    const created = await get(t.key, `/strategist/topics/${topicId}`);
    expect(created.body).toMatchObject({
      title: "Choosing trail shoes for winter",
      status: "proposed",
      source: "chat",
      rationale: "Leads from search grew",
      trend_score: 61,
      cluster_id: "trail",
    });
    for (const verb of ["confirm", "cancel"]) {
      const again = await post(t.key, `/strategist/actions/${a}/${verb}`);
      expect([again.status, again.body.code]).toEqual([409, "invalid_state"]);
      expect(again.body.detail).toContain("executed");
    }
    const cancelled = await post(t.key, `/strategist/actions/${b}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "cancelled", result: null });
    expect((await post(t.key, `/strategist/actions/${b}/confirm`)).status).toBe(409);
    // The reads agree with the answers.
    expect((await get(t.key, `/strategist/actions/${b}`)).body.status).toBe("cancelled");
  });

  it("a repeat under the same Idempotency-Key answers the action as it is, without a second topic", async () => {
    const [a] = await proposed(t, "Socks that keep feet dry");
    const first = await post(t.key, `/strategist/actions/${a}/confirm`, undefined, `same-${a}`);
    const again = await post(t.key, `/strategist/actions/${a}/confirm`, undefined, `same-${a}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const rows = await db.db
      .select()
      .from(strategistTopics)
      .where(and(eq(strategistTopics.tenantId, t.tenantId), eq(strategistTopics.title, "Socks that keep feet dry")));
    expect(rows).toHaveLength(1);
  });

  it("a title an open topic has makes the new topic duplicate; a proposal without a title fails", async () => {
    await topic(t, "approved", "Waterproof jackets explained");
    const [a, blank] = await proposed(t, "  waterproof   JACKETS explained ", null);
    const dup = await post(t.key, `/strategist/actions/${a}/confirm`);
    expect(dup.body.status).toBe("executed");
    expect((await get(t.key, `/strategist/topics/${dup.body.result.topic_id}`)).body.status).toBe("duplicate");
    const failed = await post(t.key, `/strategist/actions/${blank}/confirm`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: "failed", result: null, error: { code: "invalid_proposal" } });
  });

  it("another integration's action, or another tenant's, is 404", async () => {
    const other = await strategistTenant();
    const [foreign] = await proposed(other, "Not yours");
    expect((await post(t.key, `/strategist/actions/${foreign}/confirm`)).status).toBe(404);
    const [mine] = await proposed(t, "Mine");
    expect((await post(other.key, `/strategist/actions/${mine}/cancel`)).status).toBe(404);
  });

  it("an action 7 days old is expired: 409 on decisions, written by the daily job for preview tenants only", async () => {
    const [a] = await proposed(t, "Late idea");
    const off = await makeTenant(db.db);
    const [offAction] = await proposed(off, "Not in the preview");
    const [offTopic, lateTopic] = [
      await topic(off),
      await topic(t, "proposed", "Late topic", new Date(Date.now() + DAY)),
    ];
    const later = Date.now() + 8 * DAY;
    setClock(() => later);
    const r = await post(t.key, `/strategist/actions/${a}/confirm`);
    expect([r.status, r.body.code]).toEqual([409, "invalid_state"]);
    expect(r.body.detail).toContain("expired");
    expect((await post(t.key, `/strategist/topics/${lateTopic}/approve`)).status).toBe(409);
    const swept = await expireStrategistItems(db.db, [t.tenantId], later);
    expect(swept.actions).toBeGreaterThanOrEqual(1);
    expect(swept.topics).toBeGreaterThanOrEqual(1);
    const [row] = await db.db.select().from(strategistActions).where(eq(strategistActions.id, a!));
    expect(row!.status).toBe("expired");
    const [tp] = await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, lateTopic));
    expect(tp!.status).toBe("expired");
    const [untouched] = await db.db.select().from(strategistActions).where(eq(strategistActions.id, offAction!));
    expect(untouched!.status).toBe("proposed");
    expect((await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, offTopic)))[0]!.status).toBe(
      "proposed",
    );
  });
});

describe("decisions on topics", () => {
  it("approve and reject move proposed topics; everything else is 409 invalid_state", async () => {
    const a = await topic(t);
    const ok = await post(t.key, `/strategist/topics/${a}/approve`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: a, status: "approved" });
    expect(ok.body.decided_at).toEqual(expect.any(String));
    expect((await post(t.key, `/strategist/topics/${a}/approve`)).body.code).toBe("invalid_state");
    expect((await post(t.key, `/strategist/topics/${a}/reject`)).body.status).toBe("rejected");
    for (const status of ["generating", "generated", "rejected", "duplicate", "expired"]) {
      const id = await topic(t, status);
      for (const verb of ["approve", "reject"]) {
        const r = await post(t.key, `/strategist/topics/${id}/${verb}`);
        expect([r.status, r.body.code], `${verb} ${status}`).toEqual([409, "invalid_state"]);
      }
    }
    const other = await strategistTenant();
    expect((await post(other.key, `/strategist/topics/${await topic(t)}/approve`)).status).toBe(404);
  });
});

describe("chat sessions and paid turns", () => {
  const session = async (key: string) => {
    const r = await post(key, "/strategist/chat/sessions");
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ turns: [] });
    return r.body.id as string;
  };
  const turn = (key: string, sessionId: string, content: string, q = "", idem?: string) =>
    post(key, `/strategist/chat/sessions/${sessionId}/turns${q}`, { content }, idem);

  it("a turn holds, answers from the tenant's figures, proposes topics, charges what it used", async () => {
    const other = await strategistTenant();
    await db.db
      .insert(products)
      .values({ tenantId: other.tenantId, code: "FOREIGN-1", name: "Foreign shop sneaker", active: true });
    await db.db.insert(strategistTopics).values({
      tenantId: t.tenantId,
      title: "RivalSport outranks us on trail shoes",
      source: "competitors",
      status: "proposed",
      competitorDomain: "RivalSport",
      trendScore: 90,
    });
    const s = await session(t.key);
    const before = await walletOf(t.tenantId);
    const r = await turn(t.key, s, "Which topics should we write about next?");
    expect(r.status).toBe(202);
    expect(r.body.turn).toMatchObject({ session_id: s, status: "queued", reply: null, usage: null, actions: [] });
    expect(r.body.operation).toMatchObject({
      type: "strategist.turn",
      status: "queued",
      resource: { type: "strategist_session", id: s },
    });
    expect((await walletOf(t.tenantId)).heldMinor).toBeGreaterThan(before.heldMinor);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    const read = await get(t.key, `/strategist/chat/sessions/${s}`);
    expect(read.status).toBe(200);
    const [done] = read.body.turns;
    expect(done).toMatchObject({ status: "succeeded", content: "Which topics should we write about next?" });
    expect(done.reply.length).toBeGreaterThan(0);
    expect(done.usage).toMatchObject({ cost: { currency: "RUB" }, model: "offline-analyst-1" });
    expect(done.actions.length).toBeGreaterThan(0);
    expect(done.actions[0]).toMatchObject({ type: "propose_topic", status: "proposed", session_id: s });
    // The tenant's own figures only: its cards are cited, another tenant's never; no competitor is named.
    const said = JSON.stringify(done);
    expect(said).toMatch(/Trail runner Storm|Road racer Breeze/);
    expect(said).not.toContain("Foreign shop sneaker");
    expect(said.toLowerCase()).not.toContain("rivalsport");
    const ledger = await ledgerOf(r.body.operation.id);
    expect(ledger.map((l) => l.kind).sort()).toEqual(["charge", "hold", "release"]);
    const charge = ledger.find((l) => l.kind === "charge")!;
    expect(-charge.amountMinor).toBe(BigInt(Math.round(Number(done.usage.cost.amount) * 100)));
    const after = await walletOf(t.tenantId);
    expect(after.heldMinor).toBe(before.heldMinor);
    expect(after.balanceMinor).toBe(before.balanceMinor + charge.amountMinor);
    const ev = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "strategist.turn.completed")));
    expect(ev.map((e) => e.data)).toContainEqual({
      type: "strategist_session",
      session_id: s,
      turn_id: done.id,
      operation_id: r.body.operation.id,
      status: "succeeded",
    });
    // Spec "Events": a strategist turn also emits operation.completed, the Operation with its usage.
    const completed = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "operation.completed")));
    expect(completed.map((e) => e.data)).toContainEqual(
      expect.objectContaining({
        id: r.body.operation.id,
        type: "strategist.turn",
        status: "succeeded",
        resource: { type: "strategist_session", id: s },
        usage: done.usage,
      }),
    );
    // The proposed action is the integration's to decide, and confirming it makes the topic.
    const confirmed = await post(t.key, `/strategist/actions/${done.actions[0].id}/confirm`);
    expect(confirmed.body.status).toBe("executed");
  });

  it("one turn at a time: of 20 parallel turns one is accepted, the others 409 with Retry-After", async () => {
    const s = await session(t.key);
    const holdsBefore = await holdsOf(t.tenantId);
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => turn(t.key, s, `Question ${i}`)));
    const statuses = all.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 202)).toHaveLength(1);
    const refused = all.filter((r) => r.status === 409);
    expect(refused).toHaveLength(19);
    for (const r of refused) {
      expect(r.body.code).toBe("invalid_state");
      expect(r.headers.get("retry-after")).toBe("5");
    }
    // Nothing of the refused ones is held: one hold only, and one turn.
    expect((await holdsOf(t.tenantId)) - holdsBefore).toBe(1);
    expect((await get(t.key, `/strategist/chat/sessions/${s}`)).body.turns).toHaveLength(1);
    const accepted = all.find((r) => r.status === 202)!;
    await runOperation(db.db, accepted.body.operation.id);
    expect((await turn(t.key, s, "And now?")).status).toBe(202);
  });

  it("waits for the reply with wait, and a repeat of the key answers the same turn without a charge", async () => {
    const loop = startOperationLoop(db.db, { pollMs: 20 });
    try {
      const s = await session(t.key);
      const r = await turn(
        t.key,
        s,
        "How many leads did we get this week compared with last week?",
        "?wait=10",
        `w-${s}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.turn.status).toBe("succeeded");
      expect(r.body.operation.status).toBe("succeeded");
      const again = await turn(t.key, s, "How many leads did we get this week compared with last week?", "", `w-${s}`);
      expect(again.status).toBe(200);
      expect(again.body.turn.id).toBe(r.body.turn.id);
      expect((await ledgerOf(r.body.operation.id)).filter((l) => l.kind === "charge")).toHaveLength(1);
      const bad = await turn(t.key, s, "x", "?wait=21");
      expect([bad.status, bad.body.errors?.[0]?.field]).toEqual([422, "/wait"]);
    } finally {
      await loop.stop();
    }
  });

  it("a failed turn releases its hold and charges nothing; bad bodies and foreign sessions are refused", async () => {
    setLanguageModel({
      ...catalogModel(),
      analyze: async () => {
        throw new ModelUnavailableError("the analyst is down");
      },
    });
    const s = await session(t.key);
    const before = await walletOf(t.tenantId);
    const r = await turn(t.key, s, "Summarise the month");
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "failed", final: true });
    const read = await get(t.key, `/strategist/chat/sessions/${s}`);
    expect(read.body.turns[0]).toMatchObject({ status: "failed", usage: null, error: { code: "ai_unavailable" } });
    expect((await ledgerOf(r.body.operation.id)).map((l) => l.kind).sort()).toEqual(["hold", "release"]);
    expect(await walletOf(t.tenantId)).toMatchObject({
      balanceMinor: before.balanceMinor,
      heldMinor: before.heldMinor,
    });

    const long = await turn(t.key, s, "x".repeat(4001));
    expect([long.status, long.body.errors?.[0]?.field]).toEqual([422, "/content"]);
    const blank = await turn(t.key, s, "   ");
    expect([blank.status, blank.body.errors?.[0]?.field]).toEqual([422, "/content"]);
    const noKey = await call("POST", `/strategist/chat/sessions/${s}/turns`, {
      key: t.key,
      json: { content: "hi" },
      ...P,
    });
    expect([noKey.status, noKey.body.code]).toEqual([400, "idempotency_key_required"]);
    const other = await strategistTenant();
    expect((await turn(other.key, s, "hi")).status).toBe(404);
    expect((await get(other.key, `/strategist/chat/sessions/${s}`)).status).toBe(404);
  });

  it("test mode: a sandbox turn runs offline, pays from the sandbox wallet, and is invisible to the live key", async () => {
    const x = await strategistTenant();
    const sk = await sandboxKey(db.db, x);
    setLanguageModel({
      ...catalogModel(),
      analyze: async () => {
        throw new Error("a test key reached the live model");
      },
    });
    const liveBefore = await walletOf(x.tenantId, true);
    const s = await session(sk);
    const r = await turn(sk, s, "What are our top lead sources?");
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    expect((await get(x.key, `/strategist/chat/sessions/${s}`)).status).toBe(404);
    const ledger = await ledgerOf(r.body.operation.id);
    expect(ledger.map((l) => l.kind).sort()).toEqual(["charge", "hold", "release"]);
    expect(ledger.every((l) => l.livemode === false)).toBe(true);
    expect(await walletOf(x.tenantId, true)).toMatchObject({ balanceMinor: liveBefore.balanceMinor });
    // `test:ai_unavailable` makes a sandbox turn fail as an unavailable model does.
    const magic = await turn(sk, s, "test:ai_unavailable");
    await runOperation(db.db, magic.body.operation.id);
    const read = await get(sk, `/strategist/chat/sessions/${s}`);
    expect(read.body.turns[1]).toMatchObject({ status: "failed", error: { code: "ai_unavailable" } });
  });
});
