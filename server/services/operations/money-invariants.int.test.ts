import fc from "fast-check";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { operations, walletLedger, wallets } from "@/db/schema";
import { runOperation } from "@/server/jobs/run-operation";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import { ModelUnavailableError, type LanguageModel } from "@/server/services/ai-seller/language-model";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Money invariants of paid operations (issue 17, 5; DESIGN "Money") over random interleavings of creating
// operations (parallel requests), completing, failing, timing them out, replaying requests, topping up and
// debiting. After every step: the balance equals the sum of the ledger; open holds equal the sum of the
// ledger's hold column and belong only to queued or running operations; never more operations open than the
// concurrency limit; no charge above its hold; and, until an operator debits, the available balance never
// goes below zero. Runs on PostgreSQL (real parallelism) with more cases; on PGlite with a few.

const pg = Boolean(process.env.DATABASE_URL);
const CONCURRENCY = 3;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let n = 0;
const P = { preview: "conversation-writes" as const };

const failing: LanguageModel = {
  model: "catalog-1",
  writerModel: "catalog-1",
  reply: async () => {
    throw new ModelUnavailableError("down");
  },
  write: async () => {
    throw new ModelUnavailableError("down");
  },
  analystModel: "catalog-1",
  analyze: async () => {
    throw new ModelUnavailableError("down");
  },
};

type Action =
  | { kind: "create"; count: number; conv: number }
  | { kind: "complete" | "fail" | "timeout"; pick: number }
  | { kind: "replay"; pick: number }
  | { kind: "topup" | "debit"; amount: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), count: fc.integer({ min: 1, max: 10 }), conv: fc.nat(3) }),
  fc.record({ kind: fc.constantFrom("complete" as const, "fail" as const, "timeout" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("replay" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constantFrom("topup" as const, "debit" as const), amount: fc.integer({ min: 1, max: 150 }) }),
);

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => db.drop());

async function check(t: TenantFixture, debited: boolean): Promise<void> {
  const [w] = await db.db
    .select()
    .from(wallets)
    .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, true)));
  const [sum] = await db.db
    .select({
      amount: sql<string>`coalesce(sum(${walletLedger.amountMinor}), 0)::text`,
      hold: sql<string>`coalesce(sum(${walletLedger.holdMinor}), 0)::text`,
    })
    .from(walletLedger)
    .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, true)));
  expect(w!.balanceMinor).toBe(BigInt(sum!.amount));
  expect(w!.heldMinor).toBe(BigInt(sum!.hold));
  const ops = await db.db.select().from(operations).where(eq(operations.tenantId, t.tenantId));
  expect(w!.heldMinor).toBe(ops.filter((o) => o.holdOpen).reduce((s, o) => s + o.holdMinor, 0n));
  for (const o of ops) {
    if (o.holdOpen) expect(["queued", "running"]).toContain(o.status);
    if (o.status === "queued" || o.status === "running") expect(o.holdOpen).toBe(true);
    expect(o.chargedMinor ?? 0n).toBeLessThanOrEqual(o.holdMinor);
    if (o.status !== "succeeded") expect(o.chargedMinor ?? 0n).toBe(0n);
  }
  expect(ops.filter((o) => o.status === "queued" || o.status === "running").length).toBeLessThanOrEqual(CONCURRENCY);
  if (!debited) expect(w!.balanceMinor - w!.heldMinor).toBeGreaterThanOrEqual(0n);
}

it("keeps the money invariants under random interleavings", { timeout: 600_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(action, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
      async (steps) => {
        const t = await makeTenant(db.db, { balanceMinor: 150n });
        await setPreview(db.db, t.tenantId, "conversation-writes", true);
        await setLimitOverride(
          db.db,
          { tenantId: t.tenantId },
          { paidConcurrency: CONCURRENCY, paidPerMin: 10_000, writePerMin: 10_000 },
        );
        const convs: string[] = [];
        for (let i = 0; i < 4; i++)
          convs.push(
            (await call("POST", "/conversations", { key: t.key, json: { external_customer_id: `p-${i}` }, ...P })).body
              .id,
          );
        const sent: { conv: string; key: string; content: string }[] = [];
        const post = (s: { conv: string; key: string; content: string }) =>
          call("POST", `/conversations/${s.conv}/messages`, {
            key: t.key,
            json: { content: s.content },
            idempotencyKey: s.key,
            ...P,
          });
        const open = async () =>
          (await db.db.select().from(operations).where(eq(operations.tenantId, t.tenantId))).filter(
            (o) => o.status === "queued" || o.status === "running",
          );
        let debited = false;
        for (const step of steps) {
          await Promise.all(
            step.map(async (a) => {
              if (a.kind === "create") {
                await Promise.all(
                  Array.from({ length: a.count }, async () => {
                    const s = { conv: convs[a.conv % convs.length]!, key: `k-${++n}`, content: `question ${n}` };
                    sent.push(s);
                    const r = await post(s);
                    expect([200, 202, 402, 409]).toContain(r.status);
                    if (r.status === 402)
                      expect(["insufficient_funds", "spend_limit_reached", "wallet_suspended"]).toContain(r.body.code);
                  }),
                );
              } else if (a.kind === "replay") {
                const s = sent[a.pick % Math.max(1, sent.length)];
                if (s) expect([200, 202, 402, 409]).toContain((await post(s)).status);
              } else if (a.kind === "topup" || a.kind === "debit") {
                if (a.kind === "debit") debited = true;
                await changeBalance(db.db, {
                  tenantId: t.tenantId,
                  amountMinor: a.kind === "topup" ? BigInt(a.amount) : -BigInt(a.amount),
                  kind: a.kind === "topup" ? "credit" : "debit",
                  actor: "operator",
                });
              } else {
                const list = await open();
                const o = list[(a as { pick: number }).pick % Math.max(1, list.length)];
                if (!o) return;
                if (a.kind === "timeout")
                  await db.db
                    .update(operations)
                    .set({ deadlineAt: new Date(Date.now() - 1000) })
                    .where(eq(operations.id, o.id));
                await runOperation(db.db, o.id, { model: a.kind === "fail" ? failing : catalogModel() });
              }
            }),
          );
          await check(t, debited);
        }
        // Finish everything: every hold closes, and the wallet holds nothing more.
        for (const o of await open()) await runOperation(db.db, o.id, { model: catalogModel() });
        await check(t, debited);
        const [w] = await db.db
          .select()
          .from(wallets)
          .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, true)));
        expect(w!.heldMinor).toBe(0n);
      },
    ),
    { numRuns: pg ? 25 : 4, endOnFailure: true },
  );
});
