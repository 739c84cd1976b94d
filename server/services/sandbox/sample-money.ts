import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrationDailySpend, operations, payments, walletLedger, wallets } from "@/db/schema";
import { formatMinor } from "@/server/lib/money";
import { costMinor, maxCostMinor } from "../ai-seller/prices";
import { DAY_MS, momentOf, nth, SANDBOX_DAYS, utcDayOf, type SandboxContext } from "./sample-context";

/** The sandbox wallet's balance at seeding, RUB minor units (10,000.00 RUB; issue 69 item 3). */
export const SANDBOX_BALANCE_MINOR = 1_000_000n;

/** The sample top-up paid through the sandbox provider 15 days before seeding, RUB minor units (5,000.00). */
const TOPUP_MINOR = 500_000n;
/** The model of test mode's AI replies: the offline catalog model, never an external one. */
const MODEL = "catalog-1";

/** One ledger row to write, before its running balance is known. */
interface LedgerEntry {
  id: string;
  at: Date;
  kind: "credit" | "topup" | "hold" | "charge" | "release";
  amountMinor: bigint;
  holdMinor: bigint;
  operationId: string | null;
  integrationId: string | null;
  description: string;
  actor: string;
}

type OperationInsert = typeof operations.$inferInsert;

/**
 * Seeds the sandbox's money and paid work inside the caller's transaction: 30 days of finished
 * operations of each sample integration (AI replies of the offline catalog model, most succeeded with
 * their `hold` and `charge` (+`release` of the rest), some failed with the whole hold released, and an
 * unpaid article generation every sixth day), the integrations' spend a day, a top-up of 5,000.00 RUB
 * paid through the sandbox provider and one canceled, and the sandbox wallet with its ledger: a
 * starting `credit` chosen so the wallet holds exactly {@link SANDBOX_BALANCE_MINOR} (10,000.00 RUB) at
 * seeding, no hold open, and the ledger's amounts summing to the balance (the money invariants hold).
 * A sandbox wallet that already exists (a sandbox written to before its seeding) keeps its rows and
 * gains the 10,000.00 RUB.
 */
export async function seedSandboxMoney(tx: Db, ctx: SandboxContext): Promise<void> {
  const { owner, r } = ctx;
  const ops: OperationInsert[] = [];
  const ledger: LedgerEntry[] = [];
  const spend = new Map<string, { integrationId: string; day: string; usedMinor: bigint }>();
  const hold = maxCostMinor(MODEL);
  ctx.integrations.forEach((integration, k) => {
    for (let daysAgo = SANDBOX_DAYS - 1; daysAgo >= 0; daysAgo--) {
      const replies = 1 + ((daysAgo + k) % 3);
      for (let j = 0; j < replies; j++) {
        const createdAt = momentOf(ctx, daysAgo, (j + 0.3 + r.next() * 0.5) / (replies + 1));
        const completedAt = new Date(createdAt.getTime() + 800 + r.int(2500));
        const failed = (daysAgo * 3 + j + k) % 11 === 4;
        const id = randomUUID();
        const asked = nth(ctx.samples.customerMessages, daysAgo + j + k, null);
        const charged = failed
          ? 0n
          : costMinor(MODEL, { inputTokens: 600 + r.int(3000), outputTokens: 40 + r.int(300) });
        ops.push({
          id,
          ...owner,
          integrationId: integration.id,
          type: "conversation.ai_reply",
          status: failed ? "failed" : "succeeded",
          resourceType: failed ? null : "message",
          resourceId: failed ? null : nth(ctx.samples.aiMessageIds, daysAgo + j, null),
          error: failed ? { code: "upstream_unavailable", message: "The AI provider did not answer in time." } : null,
          usage: failed ? null : { cost: { amount: formatMinor(charged), currency: "RUB" }, model: MODEL },
          conversationId: asked?.conversationId ?? null,
          messageId: asked?.id ?? null,
          holdMinor: hold,
          holdOpen: false,
          chargedMinor: charged,
          attempts: 1,
          createdAt,
          completedAt,
          deadlineAt: new Date(createdAt.getTime() + 60_000),
        });
        const common = { operationId: id, integrationId: integration.id };
        ledger.push({
          ...common,
          id: randomUUID(),
          at: createdAt,
          kind: "hold",
          amountMinor: 0n,
          holdMinor: hold,
          description: "hold for conversation.ai_reply",
          actor: `integration:${integration.id}`,
        });
        if (charged > 0n) {
          ledger.push({
            ...common,
            id: randomUUID(),
            at: completedAt,
            kind: "charge",
            amountMinor: -charged,
            holdMinor: -charged,
            description: "charge for conversation.ai_reply",
            actor: "system",
          });
          const day = utcDayOf(completedAt);
          const key = `${integration.id}/${day}`;
          const s = spend.get(key) ?? { integrationId: integration.id, day, usedMinor: 0n };
          s.usedMinor += charged;
          spend.set(key, s);
        }
        if (hold > charged)
          ledger.push({
            ...common,
            id: randomUUID(),
            at: completedAt,
            kind: "release",
            amountMinor: 0n,
            holdMinor: -(hold - charged),
            description: "release of the hold for conversation.ai_reply",
            actor: "system",
          });
      }
      if ((daysAgo + k) % 6 === 2) {
        const createdAt = momentOf(ctx, daysAgo, 0.9);
        ops.push({
          ...owner,
          integrationId: integration.id,
          type: "article.generation",
          status: "succeeded",
          resourceType: "article",
          resourceId: nth(ctx.samples.articleIds, daysAgo, null),
          attempts: 1,
          createdAt,
          completedAt: new Date(createdAt.getTime() + 40_000),
          deadlineAt: new Date(createdAt.getTime() + 600_000),
        });
      }
    }
  });

  const paymentRows = samplePayments(ctx, ledger);
  const charges = ledger.reduce((sum, e) => sum + e.amountMinor, 0n);
  ledger.push({
    id: randomUUID(),
    at: new Date(Math.floor(ctx.now / DAY_MS) * DAY_MS - SANDBOX_DAYS * DAY_MS),
    kind: "credit",
    amountMinor: SANDBOX_BALANCE_MINOR - charges,
    holdMinor: 0n,
    operationId: null,
    integrationId: null,
    description: "Sandbox starting balance",
    actor: "system",
  });
  ledger.sort((a, b) => a.at.getTime() - b.at.getTime());

  const [existing] = await tx
    .select({ balance: wallets.balanceMinor })
    .from(wallets)
    .where(and(eq(wallets.tenantId, owner.tenantId), eq(wallets.livemode, false)))
    .for("update");
  let balance = existing?.balance ?? 0n;
  const rows = ledger.map((e) => {
    balance += e.amountMinor;
    return {
      id: e.id,
      ...owner,
      kind: e.kind,
      amountMinor: e.amountMinor,
      holdMinor: e.holdMinor,
      operationId: e.operationId,
      balanceAfterMinor: balance,
      integrationId: e.integrationId,
      description: e.description,
      actor: e.actor,
      createdAt: e.at,
    };
  });
  for (let i = 0; i < ops.length; i += 500) await tx.insert(operations).values(ops.slice(i, i + 500));
  for (let i = 0; i < rows.length; i += 500) await tx.insert(walletLedger).values(rows.slice(i, i + 500));
  await tx.insert(payments).values(paymentRows);
  if (spend.size)
    await tx.insert(integrationDailySpend).values([...spend.values()].map((s) => ({ ...s, livemode: false })));
  await tx
    .insert(wallets)
    .values({ ...owner, balanceMinor: balance })
    .onConflictDoUpdate({
      target: [wallets.tenantId, wallets.livemode],
      set: { balanceMinor: sql`${balance.toString()}::bigint`, updatedAt: new Date(ctx.now) },
    });
}

/**
 * The sample top-ups: 5,000.00 RUB paid through the sandbox provider 15 days ago (its `topup` ledger
 * entry is added to `ledger`, and the payment names it) and 2,000.00 RUB canceled on the provider's page
 * 6 days ago. Started by the context's staff member (`system` when the tenant has none).
 * @returns the payment rows, to write after the ledger rows they name
 */
function samplePayments(ctx: SandboxContext, ledger: LedgerEntry[]): (typeof payments.$inferInsert)[] {
  const staffUserId = ctx.staffUserId ?? "system";
  const settle = (at: Date) => new Date(at.getTime() + 95_000);
  const payment = (daysAgo: number, fraction: number, amountMinor: bigint, succeeded: boolean) => {
    const id = randomUUID();
    const at = momentOf(ctx, daysAgo, fraction);
    const ledgerId = succeeded ? randomUUID() : null;
    if (ledgerId)
      ledger.push({
        id: ledgerId,
        at: settle(at),
        kind: "topup",
        amountMinor,
        holdMinor: 0n,
        operationId: null,
        integrationId: null,
        description: `Payment ${id} (sandbox ${id})`,
        actor: ctx.staffUserId ? `staff:${ctx.staffUserId}` : "system",
      });
    return {
      id,
      ...ctx.owner,
      amountMinor,
      provider: "sandbox",
      providerPaymentId: id,
      // Idempotency keys of payments are unique across tenants: the tenant and a fresh id make this one so.
      idempotencyKey: `${ctx.owner.tenantId}:sandbox-seed:${id}`,
      status: succeeded ? "succeeded" : "canceled",
      staffUserId,
      ledgerId,
      createdAt: at,
      settledAt: settle(at),
    };
  };
  return [payment(15, 0.45, TOPUP_MINOR, true), payment(6, 0.6, 200_000n, false)];
}
