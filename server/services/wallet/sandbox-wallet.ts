import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { wallets } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { actorLabel, type IntegrationActor } from "../actor";
import { announceExchangeResumed } from "../events/work-notifier";
import { ownedBy } from "../tenant-scope";
import { changeBalanceInTransaction, setWalletBlockedInTransaction } from "./wallet-ledger";

/** What a tenant's sandbox wallet holds when it is opened: 10,000.00 RUB of test money, in minor units. */
export const SANDBOX_OPENING_BALANCE_MINOR = 1_000_000n;

/**
 * Opens the tenant's sandbox wallet (issue 69: the `wallets` row with `livemode` false) when it has none:
 * {@link SANDBOX_OPENING_BALANCE_MINOR} with its `credit` ledger row, in one statement, so the ledger's sum
 * equals the balance from the first moment. A wallet that exists is left as it is (sandbox seeding and
 * the test helpers call this whenever they need the wallet). The live wallet is never read or written.
 * @returns true when the wallet was opened now, false when it existed.
 */
export async function ensureSandboxWallet(db: Db, tenantId: string): Promise<boolean> {
  const opening = SANDBOX_OPENING_BALANCE_MINOR.toString();
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      with opened as (
        insert into wallets (tenant_id, livemode, balance_minor)
        values (${tenantId}, false, ${opening}::bigint)
        on conflict do nothing
        returning tenant_id, balance_minor
      )
      insert into wallet_ledger (tenant_id, livemode, kind, amount_minor, balance_after_minor, actor, description)
      select tenant_id, false, 'credit', balance_minor, balance_minor, 'system', 'Sandbox wallet opened with test money'
      from opened
      returning id`),
  );
  return rows.length > 0;
}

/** What `POST /test-helpers/wallet` sets: a balance (RUB minor units) or a state (`blocked` or `ok` = not blocked). */
export type SandboxWalletChange = { balanceMinor: bigint } | { state: "blocked" | "ok" };

/**
 * `POST /test-helpers/wallet` (issue 69 item 4): sets the sandbox wallet of a sandbox actor (a test key of
 * a tenant with the preview `test-mode`), in the caller's transaction, through the same ledger paths as
 * live money, so the ledger's sum stays equal to the balance:
 * - `balanceMinor`: a `credit` or `debit` row of the difference (none when it is already that balance);
 *   a balance taken from below 0 to 0 or more resumes the sandbox's deferred webhook deliveries, as a
 *   live top-up does;
 * - `state` `blocked`: a `block` row (exchange suspended, 402 `wallet_suspended`); `ok`: an `unblock` row,
 *   which with a balance of 0 or more resumes the sandbox's deferred deliveries. The balance is kept.
 * The resumption is announced to the jobs driver after the commit. The sandbox wallet is opened first
 * when missing ({@link ensureSandboxWallet}). Never touches a live row.
 * @throws ApiError 404 `not_found` for a live actor (a live key, or a test key without the preview).
 */
export async function setSandboxWallet(db: Db, actor: IntegrationActor, change: SandboxWalletChange): Promise<void> {
  if (actor.livemode)
    throw new ApiError(
      "not_found",
      "Test helpers act on the sandbox only: call them with a test key of a tenant with the preview test-mode.",
    );
  await ensureSandboxWallet(db, actor.tenantId);
  const who = actorLabel(actor);
  let resumed: boolean;
  if ("state" in change) {
    ({ resumed } = await setWalletBlockedInTransaction(db, actor, change.state === "blocked", who));
  } else {
    // The row is locked first, so the difference is taken from the balance that the change applies to.
    const [w] = await db
      .select({ balance: wallets.balanceMinor })
      .from(wallets)
      .where(ownedBy(wallets, actor))
      .for("update");
    const delta = change.balanceMinor - w!.balance;
    if (delta === 0n) return;
    ({ resumed } = await changeBalanceInTransaction(db, {
      tenantId: actor.tenantId,
      livemode: false,
      amountMinor: delta,
      kind: delta > 0n ? "credit" : "debit",
      actor: who,
      description: "Test helper: sandbox balance set",
      integrationId: actor.integrationId,
    }));
  }
  // Inside the request's afterCommit (server/public-api/execute.ts) this waits for the commit.
  if (resumed) announceExchangeResumed(actor.tenantId, false);
}
