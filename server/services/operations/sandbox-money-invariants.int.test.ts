import fc from "fast-check";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { operations, walletLedger, wallets } from "@/db/schema";
import { runOperation } from "@/server/jobs/run-operation";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import { ModelUnavailableError, type LanguageModel } from "@/server/services/ai-seller/language-model";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { ensureSandboxWallet } from "@/server/services/wallet/sandbox-wallet";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant } from "@/server/testing/empty-sandbox";
import type { TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Test-mode money never touches live money (issue 69 item 3), as a property: any interleaving of a sandbox
// key's paid work (parallel customer messages, replays, replies, failures, timeouts) and of the test helper
// (balances set above and below zero, blocks and unblocks) leaves every live wallet, ledger, spend,
// payment and operation row of the tenant exactly as it was (a checksum of the rows before and after), and
// the live ledger's sums with them; meanwhile the sandbox wallet keeps the money invariants of live money:
// balance = sum of its ledger, open holds = sum of the ledger's hold column = holds of its unfinished
// operations, never more unfinished than the concurrency limit, no charge above its hold.
// Runs on PostgreSQL (real parallelism) with more cases; on PGlite with a few.

const pg = Boolean(process.env.DATABASE_URL);
const CONCURRENCY = 3;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let n = 0;
const P = { preview: "conversation-writes" as const };
const T = { preview: "test-mode" as const };

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
  | { kind: "balance"; minor: number }
  | { kind: "block" | "unblock" };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), count: fc.integer({ min: 1, max: 8 }), conv: fc.nat(2) }),
  fc.record({ kind: fc.constantFrom("complete" as const, "fail" as const, "timeout" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("replay" as const), pick: fc.nat() }),
  // A hold is 0.40 RUB: balances around it reach insufficient_funds, and below zero wallet_suspended.
  fc.record({ kind: fc.constant("balance" as const), minor: fc.integer({ min: -200, max: 300 }) }),
  fc.record({ kind: fc.constantFrom("block" as const, "unblock" as const) }),
);

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => db.drop());

/** A checksum of every live money row of the tenant: its live wallet, ledger, spend, payments and operations. */
async function liveChecksum(tenantId: string): Promise<{ md5: string; rows: number; amount: string; hold: string }> {
  const [r] = rowsOf<{ md5: string; rows: number; amount: string; hold: string }>(
    await db.db.execute(sql`
      select md5(coalesce(string_agg(x, '|' order by x), '')) as md5, count(*)::int as rows,
        (select coalesce(sum(amount_minor), 0)::text from wallet_ledger where tenant_id = ${tenantId} and livemode) as amount,
        (select coalesce(sum(hold_minor), 0)::text from wallet_ledger where tenant_id = ${tenantId} and livemode) as hold
      from (
        select 'wallet ' || row_to_json(w)::text as x from wallets w where w.tenant_id = ${tenantId} and w.livemode
        union all
        select 'ledger ' || row_to_json(l)::text from wallet_ledger l where l.tenant_id = ${tenantId} and l.livemode
        union all
        select 'spend ' || row_to_json(s)::text from integration_daily_spend s
          join integrations i on i.id = s.integration_id where i.tenant_id = ${tenantId} and s.livemode
        union all
        select 'payment ' || row_to_json(p)::text from payments p where p.tenant_id = ${tenantId} and p.livemode
        union all
        select 'operation ' || row_to_json(o)::text from operations o where o.tenant_id = ${tenantId} and o.livemode
      ) q`),
  );
  return r!;
}

/** The sandbox wallet's invariants (those of live money: money-invariants.int.test.ts). */
async function checkSandbox(t: TenantFixture): Promise<void> {
  const sandbox = and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, false));
  const [w] = await db.db.select().from(wallets).where(sandbox);
  const [sum] = await db.db
    .select({
      amount: sql<string>`coalesce(sum(${walletLedger.amountMinor}), 0)::text`,
      hold: sql<string>`coalesce(sum(${walletLedger.holdMinor}), 0)::text`,
    })
    .from(walletLedger)
    .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, false)));
  expect(w!.balanceMinor).toBe(BigInt(sum!.amount));
  expect(w!.heldMinor).toBe(BigInt(sum!.hold));
  const ops = await db.db
    .select()
    .from(operations)
    .where(and(eq(operations.tenantId, t.tenantId), eq(operations.livemode, false)));
  expect(w!.heldMinor).toBe(ops.filter((o) => o.holdOpen).reduce((s, o) => s + o.holdMinor, 0n));
  for (const o of ops) {
    if (o.holdOpen) expect(["queued", "running"]).toContain(o.status);
    if (o.status === "queued" || o.status === "running") expect(o.holdOpen).toBe(true);
    expect(o.chargedMinor ?? 0n).toBeLessThanOrEqual(o.holdMinor);
    if (o.status !== "succeeded") expect(o.chargedMinor ?? 0n).toBe(0n);
  }
  expect(ops.filter((o) => o.status === "queued" || o.status === "running").length).toBeLessThanOrEqual(CONCURRENCY);
}

it("test-mode paid work and test helpers never change a live money row", { timeout: 600_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(action, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
      async (steps) => {
        // A sandbox without sample data (its seeding would add 30 days of finished work): the wallet alone.
        const t = await makeEmptySandboxTenant(db.db, { balanceMinor: 150n });
        await setPreview(db.db, t.tenantId, "conversation-writes", true);
        await ensureSandboxWallet(db.db, t.tenantId);
        await setLimitOverride(
          db.db,
          { tenantId: t.tenantId },
          { paidConcurrency: CONCURRENCY, paidPerMin: 10_000, writePerMin: 10_000 },
        );
        const testKey = t.testKey;
        // Live money in motion before the test work: an open hold of a queued live reply.
        const liveConv = (
          await call("POST", "/conversations", { key: t.key, json: { external_customer_id: "live" }, ...P })
        ).body.id as string;
        const liveMessage = await call("POST", `/conversations/${liveConv}/messages`, {
          key: t.key,
          json: { content: "Do you have warm socks?" },
          idempotencyKey: `live-${++n}`,
          ...P,
        });
        expect(liveMessage.status).toBe(202);
        const before = await liveChecksum(t.tenantId);
        expect(BigInt(before.hold)).toBeGreaterThan(0n);

        const convs: string[] = [];
        for (let i = 0; i < 3; i++)
          convs.push(
            (await call("POST", "/conversations", { key: testKey, json: { external_customer_id: `p-${i}` }, ...P }))
              .body.id,
          );
        const sent: { conv: string; key: string; content: string }[] = [];
        const post = (s: { conv: string; key: string; content: string }) =>
          call("POST", `/conversations/${s.conv}/messages`, {
            key: testKey,
            json: { content: s.content },
            idempotencyKey: s.key,
            ...P,
          });
        const helper = (json: unknown) => call("POST", "/test-helpers/wallet", { key: testKey, json, ...T });
        const open = async () =>
          (
            await db.db
              .select()
              .from(operations)
              .where(and(eq(operations.tenantId, t.tenantId), eq(operations.livemode, false)))
          ).filter((o) => o.status === "queued" || o.status === "running");
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
              } else if (a.kind === "balance") {
                const r = await helper({ balance: (a.minor / 100).toFixed(2) });
                expect(r.status).toBe(200);
              } else if (a.kind === "block" || a.kind === "unblock") {
                expect((await helper({ state: a.kind === "block" ? "blocked" : "ok" })).status).toBe(200);
              } else {
                const list = await open();
                const o = list[(a as { pick: number }).pick % Math.max(1, list.length)];
                if (!o) return;
                if (a.kind === "timeout")
                  await db.db
                    .update(operations)
                    .set({ deadlineAt: new Date(Date.now() - 1000) })
                    .where(eq(operations.id, o.id));
                await runOperation(db.db, o.id, { offlineModel: a.kind === "fail" ? failing : catalogModel() });
              }
            }),
          );
          await checkSandbox(t);
        }
        // Finish the sandbox's work: every sandbox hold closes.
        for (const o of await open()) await runOperation(db.db, o.id, { offlineModel: catalogModel() });
        await checkSandbox(t);
        const [w] = await db.db
          .select()
          .from(wallets)
          .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, false)));
        expect(w!.heldMinor).toBe(0n);
        expect(await liveChecksum(t.tenantId)).toEqual(before);
      },
    ),
    { numRuns: pg ? 20 : 3, endOnFailure: true },
  );
});
