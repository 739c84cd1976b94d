import type { TestWalletChange, Wallet } from "../types.js";
import { keyOf, unwrap, type Context, type WriteOptions } from "./context.js";

/**
 * Test helpers (preview `test-mode`: switched on per tenant; test keys only, a live key gets `not_found`):
 * put the sandbox in a state worth testing, without money.
 */
export function testHelpersResource(ctx: Context) {
  return {
    /**
     * `POST /test-helpers/wallet` (preview `test-mode`): sets the sandbox wallet, exactly one of
     * `{ balance: "-50.00" }` (RUB; below 0 suspends exchange: 402 `wallet_suspended`), `{ state: "blocked" }`
     * or `{ state: "ok" }` (lifts a block; the balance is kept). Returns the wallet as `wallet.get()` shows
     * it. A balance back to 0 or more, or `ok`, delivers the sandbox's webhooks deferred meanwhile.
     * @throws ApiError `not_found` (a live key, or a tenant without the preview), `validation_failed`
     */
    setWallet: (body: TestWalletChange, o?: WriteOptions): Promise<Wallet> =>
      unwrap(
        ctx.raw.POST("/test-helpers/wallet", {
          params: { header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),
  };
}
