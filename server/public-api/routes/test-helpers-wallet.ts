import { parseSignedAmount } from "@/server/lib/money";
import { WalletSchema } from "@/server/schemas/account";
import { TestWalletSchema } from "@/server/schemas/test-helpers";
import { readWalletBody } from "@/server/services/account/account";
import { setSandboxWallet } from "@/server/services/wallet/sandbox-wallet";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

/**
 * `POST /test-helpers/wallet` (issue 69 item 4; preview `test-mode`): sets the sandbox wallet of a test key,
 * `{"balance": "-50.00"}` or `{"state": "blocked"}` / `{"state": "ok"}`, so the suspension flow (402
 * `wallet_suspended`, deferred webhook deliveries, their resumption) can be tried without money. Answers
 * the Wallet as `GET /wallet` shows it after the change. No scope; served while exchange is suspended (it
 * is how a test lifts the suspension it made). A tenant without the preview gets the Planned 404 before
 * authentication; a live key of a tenant with it gets 404 `not_found` (live money has no test helpers).
 * A replay under the same `Idempotency-Key` answers the wallet as it is now and changes nothing.
 */
export const setTestWalletRoute = defineRoute({
  operationId: "setTestWallet",
  summary: "Set the sandbox wallet's balance or state (test keys only; preview test-mode)",
  method: "POST",
  path: "/test-helpers/wallet",
  scope: null,
  rate: "write",
  walletExempt: true,
  preview: "test-mode",
  body: TestWalletSchema,
  responses: { 200: WalletSchema },
  problems: ["not_found"],
  handler: async ({ db, actor, caller, body }) => {
    await setSandboxWallet(
      db,
      actor,
      body.balance !== undefined ? { balanceMinor: parseSignedAmount(body.balance) } : { state: body.state! },
    );
    return { ...ok(await readWalletBody(db, caller)), resource: { type: "wallet", id: actor.tenantId } };
  },
  replay: async ({ db, caller }) => ok(await readWalletBody(db, caller)),
});

/** Routes of this file (preview `test-mode`). */
export const TEST_HELPER_WALLET_ROUTES: AnyRoute[] = [setTestWalletRoute];
