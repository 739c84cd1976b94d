import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations, strategistActions, strategistSessions, strategistTopics, strategistTurns } from "@/db/schema";
import { runOperation } from "@/server/jobs/run-operation";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Strategist page (issue 73 item 5), as a member with no right and no preview: decisions on
// topics and actions (the state machine's refusals are CONFLICT invalid_state); the tenant's actions, of API
// sessions and staff sessions, all listed; a paid turn sent twice with one click key is one turn, one hold,
// one charge; the turn's reply and cost read back. Runs on PGlite and PostgreSQL.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let staff: { id: string; email: string; name: string };
const caller = () => createCaller({ db: db.db, staff });
const DAY = 86_400_000;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  staff = { id: await makeStaff(db.db, t.tenantId, []), email: "m@x.example", name: "M" };
});
afterAll(async () => db.drop());

/** A session (of the fixture's integration, or of another staff member) with one proposed action. */
async function proposedAction(who: { integrationId: string } | { staffUserId: string }, title: string) {
  const [s] = await db.db
    .insert(strategistSessions)
    .values({ tenantId: t.tenantId, ...who })
    .returning();
  const [a] = await db.db
    .insert(strategistActions)
    .values({
      tenantId: t.tenantId,
      sessionId: s!.id,
      title,
      proposal: { rationale: "Searches grew", trend_score: 50, cluster_id: null },
      expiresAt: new Date(Date.now() + 7 * DAY),
    })
    .returning();
  return a!.id;
}

const code = (e: unknown) => (e instanceof TRPCError ? [e.code, e.message] : e);

describe("strategist decisions in the console", () => {
  it("lists the tenant's actions of every session, confirms one into a topic, approves and rejects it", async () => {
    const tenantId = t.tenantId;
    const viaApi = await proposedAction({ integrationId: t.integrationId }, "Trail shoes for mud");
    const viaStaff = await proposedAction({ staffUserId: "someone-else" }, "Winter running socks");
    const listed = await caller().strategist.actions({ tenantId, status: "proposed" });
    expect(listed.actions.map((a) => a.id)).toEqual(expect.arrayContaining([viaApi, viaStaff]));

    const done = await caller().strategist.confirmAction({ tenantId, id: viaApi });
    expect(done).toMatchObject({ status: "executed", error: null });
    const topicId = done.result!.topic_id;
    expect(await caller().strategist.topic({ tenantId, id: topicId })).toMatchObject({
      title: "Trail shoes for mud",
      status: "proposed",
    });
    expect(await caller().strategist.cancelAction({ tenantId, id: viaStaff })).toMatchObject({ status: "cancelled" });
    const again = await caller().strategist.confirmAction({ tenantId, id: viaStaff }).catch(code);
    expect(again).toEqual(["CONFLICT", expect.stringContaining("cancelled")]);

    const newest = await caller().strategist.topics({ tenantId });
    expect(newest[0]).toMatchObject({ id: topicId });
    expect(await caller().strategist.approveTopic({ tenantId, id: topicId })).toMatchObject({ status: "approved" });
    expect(await caller().strategist.approveTopic({ tenantId, id: topicId }).catch(code)).toEqual([
      "CONFLICT",
      expect.stringContaining("approved"),
    ]);
    expect(await caller().strategist.rejectTopic({ tenantId, id: topicId })).toMatchObject({ status: "rejected" });
    const rejected = await caller().strategist.topics({ tenantId, status: "rejected", order: "score" });
    expect(rejected.map((x) => x.id)).toContain(topicId);
    const [row] = await db.db.select().from(strategistTopics).where(eq(strategistTopics.id, topicId));
    expect(row!.decidedAt).not.toBeNull();
  });
});

describe("a chat turn in the console", () => {
  it("is sent once per click key (one hold, one charge) and reads back with its reply and cost", async () => {
    const tenantId = t.tenantId;
    const quote = await caller().strategist.quote({ tenantId });
    expect(quote.max_cost.amount).toMatch(/^\d+\.\d{2}$/);
    const session = await caller().strategist.createSession({ tenantId });
    expect((await caller().strategist.sessions({ tenantId })).map((s) => s.id)).toContain(session.id);

    const input = { tenantId, sessionId: session.id, content: "Which topics next?", clickKey: crypto.randomUUID() };
    const first = await caller().strategist.sendTurn(input);
    const repeat = await caller().strategist.sendTurn(input);
    expect(repeat.turn.id).toBe(first.turn.id);
    expect(repeat.operation.id).toBe(first.operation.id);
    const turns = await db.db.select().from(strategistTurns).where(eq(strategistTurns.sessionId, session.id));
    expect(turns).toHaveLength(1);
    const ops = await db.db
      .select()
      .from(operations)
      .where(and(eq(operations.tenantId, tenantId), eq(operations.type, "strategist.turn")));
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ staffUserId: staff.id, integrationId: null, livemode: true });
    expect(ops[0]!.holdMinor.toString()).toBe((Number(quote.max_cost.amount) * 100).toFixed(0));

    // A different click while the turn runs is refused: one turn at a time.
    const busy = await caller()
      .strategist.sendTurn({ ...input, clickKey: crypto.randomUUID() })
      .catch(code);
    expect(busy).toEqual(["CONFLICT", expect.stringContaining("one turn at a time")]);

    expect(await runOperation(db.db, first.operation.id)).toEqual({ status: "succeeded", final: true });
    const read = await caller().strategist.session({ tenantId, id: session.id });
    expect(read.turns).toHaveLength(1);
    const [done] = read.turns;
    expect(done).toMatchObject({ status: "succeeded", content: "Which topics next?" });
    expect(done!.reply!.length).toBeGreaterThan(0);
    expect(done!.usage!.cost.amount).toMatch(/^\d+\.\d{2}$/);
    // The repeat after the finish still answers the same turn, now finished, and charges nothing again.
    const late = await caller().strategist.sendTurn(input);
    expect(late.turn).toMatchObject({ id: first.turn.id, status: "succeeded" });
    const [op] = await db.db.select().from(operations).where(eq(operations.id, first.operation.id));
    expect(op!.holdOpen).toBe(false);
    expect(
      await db.db
        .select()
        .from(operations)
        .where(and(eq(operations.tenantId, tenantId), eq(operations.type, "strategist.turn"))),
    ).toHaveLength(1);
  });
});
