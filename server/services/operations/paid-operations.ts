import { and, eq, gte, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrationDailySpend, integrations, operations, walletLedger, wallets } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { formatMinor } from "@/server/lib/money";
import { actorLabel, type IntegrationActor, type StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";
import { readWallet } from "../wallet/wallet-state";

type OperationRow = typeof operations.$inferSelect;

/** How long an operation may stay unfinished before it fails with `operation_timeout`, ms. */
export const OPERATION_TIMEOUT_MS = 5 * 60_000;

/**
 * Operation types the paid operation engine runs: it holds their cost here, counts them against the
 * tenant's paid concurrency, and claims, times out and settles them (operation-runs.ts, which imports this
 * list; this module owns it, so the two do not import each other): the AI seller's replies, article
 * generations (issue 72) and strategist turns (issue 73). Rows of other types are never claimed, timed out
 * or changed by it.
 */
export const ENGINE_OPERATION_TYPES = ["conversation.ai_reply", "article.generation", "strategist.turn"] as const;

/** One of {@link ENGINE_OPERATION_TYPES}. */
export type EngineOperationType = (typeof ENGINE_OPERATION_TYPES)[number];

/**
 * Paid operations that run inside the request that creates them (issue 70: lead scoring holds, computes,
 * charges and finishes in one transaction): they are held and limited by {@link createPaidOperation} as the
 * engine's are, but never claimed by a worker, since no other transaction ever sees them unfinished.
 */
export const SYNC_OPERATION_TYPES = ["lead.score"] as const;

/** A type {@link createPaidOperation} takes. */
export type PaidOperationType = EngineOperationType | (typeof SYNC_OPERATION_TYPES)[number];

/** Every paid type, counted against the tenant's simultaneous paid operations. */
const PAID_TYPES: readonly string[] = [...ENGINE_OPERATION_TYPES, ...SYNC_OPERATION_TYPES];

/** What a paid operation is created for. */
export interface PaidOperationInput {
  type: PaidOperationType;
  /** The most it can cost, RUB minor units: the hold. */
  maxCostMinor: bigint;
  /** Simultaneous paid operations allowed for the tenant (spec `limits.paid_concurrency`). */
  paidConcurrency: number;
  /**
   * A limit of this type's own inside the paid concurrency: at most `limit` unfinished operations of the type
   * per tenant and mode (issue 72: 3 article generations), refused as the paid concurrency is.
   */
  typeConcurrency?: number;
  /** Conversation and customer message an AI reply answers; null for other types. */
  conversationId: string | null;
  messageId: string | null;
  channelId: string | null;
}

const spendLimit = (which: string) =>
  new ApiError("spend_limit_reached", `The ${which} is reached; wait for the window or raise the limit.`);

/** Today (UTC) as the `integration_daily_spend.day` key. */
export const utcDay = (d = new Date()) => d.toISOString().slice(0, 10);

/**
 * Class of the transaction lock that serializes a tenant's test-mode operation counts (the second key is
 * the tenant id's hash); PostgreSQL's two-key advisory locks are a space apart from the migration lock's.
 */
const TEST_CONCURRENCY_LOCK = 727_275;

/**
 * Refuses a new operation of mode `livemode` when the tenant already has `limit` unfinished (queued or
 * running) operations of that mode (spec "Limits": simultaneous paid operations per tenant). Call it
 * under the lock that serializes the count (the wallet row for live, {@link TEST_CONCURRENCY_LOCK} for
 * test mode); with `input.typeConcurrency`, also when `input.type`'s own unfinished ones reach it.
 * @throws ApiError 402 `spend_limit_reached` naming the limit.
 */
async function checkConcurrency(
  db: Db,
  tenantId: string,
  livemode: boolean,
  limit: number,
  input?: PaidOperationInput,
): Promise<void> {
  const [open] = await db
    .select({
      n: sql<number>`count(*)::int`,
      same: sql<number>`(count(*) filter (where ${operations.type} = ${input?.type ?? ""}))::int`,
    })
    .from(operations)
    .where(
      and(
        eq(operations.tenantId, tenantId),
        eq(operations.livemode, livemode),
        inArray(operations.status, ["queued", "running"]),
        inArray(operations.type, [...PAID_TYPES]),
      ),
    );
  const mode = livemode ? "" : " in test mode";
  if ((open?.n ?? 0) >= limit) throw spendLimit(`limit of ${limit} simultaneous paid operations of the tenant${mode}`);
  const own = input?.typeConcurrency;
  if (own !== undefined && (open?.same ?? 0) >= own)
    throw spendLimit(`limit of ${own} simultaneous ${input!.type} operations of the tenant${mode}`);
}

/** Who may start a paid operation: an integration (API key) or a staff member in the console (issue 70). */
export type PaidOperationActor = IntegrationActor | StaffActor;

/**
 * The `livemode` of the operations an actor starts. For an integration: true for a live key only. A
 * sandbox actor's (a test key with the preview `test-mode`) are false and paid from the sandbox wallet; a
 * test key without the preview works in live data but its operations are false too, and free (as before
 * test mode). `GET /operations/{id}` scopes by this value, so a key reads the operations of its own kind.
 * For a staff member: the console's mode (its Test mode switch puts them in the sandbox, which pays).
 */
export function operationLivemode(actor: PaidOperationActor): boolean {
  return actor.via === "api" ? actor.keyMode === "live" : actor.livemode !== false;
}

/**
 * What staff-started operations of the tenant charged today (UTC day) in one mode, RUB minor units: they
 * have no integration, so no `integration_daily_spend` row counts them; the tenant's daily limit adds them.
 */
async function staffSpentToday(db: Db, tenantId: string, livemode: boolean, day: string): Promise<bigint> {
  const [r] = await db
    .select({ used: sql<string>`coalesce(sum(${operations.chargedMinor}), 0)::text` })
    .from(operations)
    .where(
      and(
        eq(operations.tenantId, tenantId),
        eq(operations.livemode, livemode),
        isNotNull(operations.staffUserId),
        gte(operations.completedAt, new Date(`${day}T00:00:00Z`)),
      ),
    );
  return BigInt(r?.used ?? "0");
}

/**
 * Creates a `queued` paid operation (spec "Operation", DESIGN "Money"). Call it in the request's
 * transaction. Four kinds of actor:
 * - a live key: the live wallet pays; `livemode` true;
 * - a sandbox actor (a test key of a tenant with the preview `test-mode`, issue 69): the tenant's sandbox
 *   wallet pays, by exactly the same rules and refusals as live money; `livemode` false; the live wallet
 *   and ledger are never read or written;
 * - a test key without the preview: free, as before test mode: nothing held or charged, `livemode` false;
 * - a staff member in the console (the Score button, issue 70): the operation is the tenant's
 *   (`staff_user_id` set, `integration_id` null), paid from the wallet of the console's mode by the same
 *   tenant rules; the integration's daily limit does not apply (there is none). Its charges count towards
 *   the tenant's daily spend limit through {@link staffSpentToday}.
 * For a paying actor, in that transaction: the wallet row of the actor's mode is locked, then, in this
 * order, the per-operation maximum, the tenant's simultaneous paid operations of that mode, the wallet's
 * daily spend limit and the integration's daily limit (`wallet.daily_spend.limit`; both against that
 * mode's spend today plus its open holds plus this hold) are checked, then the available balance (balance
 * minus open holds); a `hold` of `maxCostMinor` is written to that wallet's ledger with
 * `wallets.held_minor`. Test-mode operations (both kinds) are counted against the same `paidConcurrency`
 * among the tenant's test-mode operations only, under a lock of their own, so test work can never make a
 * live request fail (issue 76 item 3; the paid rate is counted by the door, whatever the key's mode).
 * @throws ApiError 503 `upstream_unavailable` (wallet state unknown); 402 `spend_limit_reached` with a
 *   detail naming the limit; 402 `insufficient_funds`.
 */
export async function createPaidOperation(
  db: Db,
  actor: PaidOperationActor,
  input: PaidOperationInput,
): Promise<OperationRow> {
  const livemode = operationLivemode(actor);
  const integrationId = actor.via === "api" ? actor.integrationId : null;
  const base = {
    tenantId: actor.tenantId,
    integrationId,
    staffUserId: actor.via === "console" ? actor.staffUserId : null,
    livemode,
    type: input.type,
    status: "queued",
    conversationId: input.conversationId,
    messageId: input.messageId,
    channelId: input.channelId,
    deadlineAt: sql`now() + ${`${OPERATION_TIMEOUT_MS} milliseconds`}::interval`,
  };
  // The tenant's test-mode count is serialized by a transaction lock of its own (taken before the sandbox
  // wallet's row, which a free operation never takes): the live wallet row stays for live money.
  if (!livemode) {
    await db.execute(sql`select pg_advisory_xact_lock(${TEST_CONCURRENCY_LOCK}, hashtext(${actor.tenantId}))`);
    if (actor.via === "api" && actor.livemode) {
      await checkConcurrency(db, actor.tenantId, false, input.paidConcurrency, input);
      const [op] = await db.insert(operations).values(base).returning();
      return op!;
    }
  }
  const wallet = { tenantId: actor.tenantId, livemode };
  const state = await readWallet(db, wallet);
  if (state.state === "unknown")
    throw new ApiError(
      "upstream_unavailable",
      "The wallet state cannot be read right now, so paid operations are closed; retry after a pause.",
      {},
      { "retry-after": "30" },
    );
  // Read before the lock (a setting, not a balance), so the locked section holds only the sums and writes.
  const [integ] = integrationId
    ? await db
        .select({ limit: integrations.dailySpendLimitMinor })
        .from(integrations)
        .where(eq(integrations.id, integrationId))
    : [];
  const [w] = await db.select().from(wallets).where(ownedBy(wallets, wallet)).for("update");
  if (!w)
    throw new ApiError("upstream_unavailable", "The tenant's wallet cannot be read.", {}, { "retry-after": "30" });
  const hold = input.maxCostMinor;
  if (hold > w.maxOperationCostMinor)
    throw spendLimit(`maximum cost of one operation (${formatMinor(w.maxOperationCostMinor)} RUB)`);
  await checkConcurrency(db, actor.tenantId, livemode, input.paidConcurrency, input);
  const day = utcDay();
  if (w.dailySpendLimitMinor !== null) {
    const [spent] = await db
      .select({ used: sql<string>`coalesce(sum(${integrationDailySpend.usedMinor}), 0)::text` })
      .from(integrationDailySpend)
      .innerJoin(integrations, eq(integrations.id, integrationDailySpend.integrationId))
      .where(
        and(
          eq(integrations.tenantId, actor.tenantId),
          eq(integrationDailySpend.livemode, livemode),
          eq(integrationDailySpend.day, day),
        ),
      );
    const staff = await staffSpentToday(db, actor.tenantId, livemode, day);
    if (BigInt(spent?.used ?? "0") + staff + w.heldMinor + hold > w.dailySpendLimitMinor)
      throw spendLimit(`tenant's daily spend limit (${formatMinor(w.dailySpendLimitMinor)} RUB)`);
  }
  if (integrationId && integ?.limit != null) {
    const [used] = await db
      .select({ used: integrationDailySpend.usedMinor })
      .from(integrationDailySpend)
      .where(
        and(
          eq(integrationDailySpend.integrationId, integrationId),
          eq(integrationDailySpend.livemode, livemode),
          eq(integrationDailySpend.day, day),
        ),
      );
    const [held] = await db
      .select({ held: sql<string>`coalesce(sum(${operations.holdMinor}), 0)::text` })
      .from(operations)
      .where(
        and(
          eq(operations.integrationId, integrationId),
          eq(operations.livemode, livemode),
          eq(operations.holdOpen, true),
        ),
      );
    if ((used?.used ?? 0n) + BigInt(held?.held ?? "0") + hold > integ.limit)
      throw spendLimit(`integration's daily spend limit (${formatMinor(integ.limit)} RUB)`);
  }
  if (w.balanceMinor - w.heldMinor < hold)
    throw new ApiError(
      "insufficient_funds",
      `The wallet's available balance (${formatMinor(w.balanceMinor - w.heldMinor)} RUB) is below this operation's maximum cost (${formatMinor(hold)} RUB); top up.`,
    );
  const [op] = await db
    .insert(operations)
    .values({ ...base, holdMinor: hold, holdOpen: hold > 0n })
    .returning();
  if (hold > 0n) {
    await db
      .update(wallets)
      .set({ heldMinor: sql`${wallets.heldMinor} + ${hold.toString()}::bigint`, updatedAt: new Date() })
      .where(ownedBy(wallets, wallet));
    await db.insert(walletLedger).values({
      ...wallet,
      kind: "hold",
      amountMinor: 0n,
      holdMinor: hold,
      balanceAfterMinor: w.balanceMinor,
      integrationId,
      operationId: op!.id,
      description: `hold for ${input.type}`,
      actor: actorLabel(actor),
    });
  }
  return op!;
}

/**
 * Closes an operation's hold exactly once, in the caller's transaction (the one that finishes the
 * operation): charges `costMinor` (at most the hold) as a `charge` and releases the rest as a `release`,
 * on the wallet of the operation's mode (the sandbox wallet for a sandbox operation, `livemode` false),
 * and adds the charge to the integration's spend of today in that mode (`wallet.daily_spend.used`; for a
 * staff-started operation the caller's `charged_minor` on the row is what counts).
 * `costMinor` 0 (a failure, cancel or timeout) releases everything. Nothing happens when the hold is
 * already closed or there was none (a free operation of a test key without the preview).
 * @returns the amount charged, RUB minor units.
 */
export async function settleHold(db: Db, op: OperationRow, costMinor: bigint): Promise<bigint> {
  const [closed] = await db
    .update(operations)
    .set({ holdOpen: false })
    .where(and(eq(operations.id, op.id), eq(operations.holdOpen, true)))
    .returning({ hold: operations.holdMinor });
  if (!closed) return 0n;
  const hold = closed.hold;
  const charge = costMinor < 0n ? 0n : costMinor > hold ? hold : costMinor;
  const [w] = await db
    .update(wallets)
    .set({
      balanceMinor: sql`${wallets.balanceMinor} - ${charge.toString()}::bigint`,
      heldMinor: sql`${wallets.heldMinor} - ${hold.toString()}::bigint`,
      updatedAt: new Date(),
    })
    .where(ownedBy(wallets, op))
    .returning({ balance: wallets.balanceMinor });
  const common = {
    tenantId: op.tenantId,
    livemode: op.livemode,
    integrationId: op.integrationId,
    operationId: op.id,
    balanceAfterMinor: w!.balance,
    actor: "system",
  };
  if (charge > 0n) {
    await db.insert(walletLedger).values({
      ...common,
      kind: "charge",
      amountMinor: -charge,
      holdMinor: -charge,
      description: `charge for ${op.type}`,
    });
    // A staff-started operation has no integration: staffSpentToday reads its charge from the row.
    if (op.integrationId)
      await db
        .insert(integrationDailySpend)
        .values({ integrationId: op.integrationId, livemode: op.livemode, day: utcDay(), usedMinor: charge })
        .onConflictDoUpdate({
          target: [integrationDailySpend.integrationId, integrationDailySpend.livemode, integrationDailySpend.day],
          set: { usedMinor: sql`${integrationDailySpend.usedMinor} + ${charge.toString()}::bigint` },
        });
  }
  if (hold - charge > 0n)
    await db.insert(walletLedger).values({
      ...common,
      kind: "release",
      amountMinor: 0n,
      holdMinor: -(hold - charge),
      description: `release of the hold for ${op.type}`,
    });
  return charge;
}
