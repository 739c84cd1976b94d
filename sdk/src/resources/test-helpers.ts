import type { TestEvent, TestEventType, TestWalletChange, Wallet } from "../types.js";
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

    /**
     * `POST /test-helpers/events` (preview `test-mode`; scope `webhooks:manage`): emits a sample event of
     * `type` (any type of the catalog) to the sandbox's webhook subscriptions, `livemode: false`, its ids
     * naming the sandbox's own rows. Returns the event as its deliveries carry it (202: they are queued).
     * @throws ApiError `validation_failed` (a type outside the catalog), `not_found` (a live key, or a
     *   tenant without the preview), `scope_missing`
     */
    emitEvent: (type: TestEventType, o?: WriteOptions): Promise<TestEvent> =>
      unwrap(
        ctx.raw.POST("/test-helpers/events", {
          params: { header: { "Idempotency-Key": keyOf(ctx, o) } },
          body: { type },
          signal: o?.signal,
        }),
      ),
  };
}
