import { z } from "zod";
import { formatMinor, parseAmount } from "@/server/lib/money";
import { readWallet, topupUrl } from "@/server/services/wallet/wallet-state";
import { dailySpendByIntegration, ledgerPage, setDailySpendLimit } from "@/server/services/wallet/wallet-history";
import { getPayment, listPayments, refreshPayment, startPayment } from "@/server/services/payments/payments";
import { paymentProviderFor } from "@/server/services/payments/providers";
import { livemodeOf } from "@/server/services/tenant-scope";
import { ApiError } from "@/server/errors";
import { router, tenantProcedure, withRight } from "../init";

const amountText = z.string().trim();
function toMinor(text: string, field: string): bigint {
  try {
    return parseAmount(text);
  } catch {
    throw new ApiError("validation_failed", `${field} must be an amount such as 1500 or 1500.50.`, {
      errors: [{ field: `/${field}`, code: "invalid_format", message: "Enter an amount such as 1500 or 1500.50." }],
    });
  }
}

/**
 * Wallet: balance, state, ledger, daily spend per integration, payments; a top-up (needs
 * `topup_wallet`) starts a payment at the configured provider and credits nothing by itself. Each reads
 * and changes the wallet of the staff actor's mode: in the console's Test mode the sandbox wallet, whose
 * top-ups go through the built-in sandbox provider only (issue 69).
 */
export const walletRouter = router({
  get: tenantProcedure.query(async ({ ctx }) => {
    const w = await readWallet(ctx.db, ctx.actor);
    const provider = paymentProviderFor(livemodeOf(ctx.actor));
    return {
      balance: w.balanceMinor === null ? null : formatMinor(w.balanceMinor),
      currency: "RUB",
      state: w.state,
      exchange: w.exchange,
      topupUrl: topupUrl(ctx.actor.tenantId),
      canTopUp: ctx.rights.includes("topup_wallet"),
      provider: { id: provider.id, label: provider.label },
    };
  }),
  ledger: tenantProcedure
    .input(
      z.object({
        limit: z.number().int().min(1).max(100).default(20),
        cursor: z
          .object({
            createdAt: z.iso.datetime({
              offset: true,
              error: "must be the createdAt of a ledger page's next cursor (an ISO 8601 date-time)",
            }),
            id: z.uuid(),
          })
          .nullish(),
      }),
    )
    .query(({ ctx, input }) => ledgerPage(ctx.db, ctx.actor, input.limit, input.cursor ?? null)),
  dailySpend: tenantProcedure.query(({ ctx }) => dailySpendByIntegration(ctx.db, ctx.actor)),
  setDailyLimit: withRight("manage_integrations")
    .input(z.object({ integrationId: z.uuid(), limit: amountText.nullable() }))
    .mutation(async ({ ctx, input }) => {
      await setDailySpendLimit(
        ctx.db,
        ctx.actor.tenantId,
        input.integrationId,
        input.limit ? toMinor(input.limit, "limit") : null,
      );
      return { ok: true };
    }),
  topUp: withRight("topup_wallet")
    .input(z.object({ amount: amountText, idempotencyKey: z.uuid().optional() }))
    .mutation(async ({ ctx, input }) => {
      const p = await startPayment(ctx.db, ctx.actor, {
        amountMinor: toMinor(input.amount, "amount"),
        idempotencyKey: input.idempotencyKey,
      });
      return { paymentId: p.id, status: p.status, confirmationUrl: p.confirmationUrl };
    }),
  payments: tenantProcedure
    .input(z.object({ limit: z.number().int().min(1).max(100).default(50) }))
    .query(({ ctx, input }) => listPayments(ctx.db, ctx.actor, input.limit)),
  payment: tenantProcedure
    .input(z.object({ paymentId: z.uuid() }))
    .query(({ ctx, input }) => getPayment(ctx.db, ctx.actor, input.paymentId)),
  /** The return page's status check: reads a pending payment back from the provider and settles it. */
  checkPayment: tenantProcedure
    .input(z.object({ paymentId: z.uuid() }))
    .mutation(({ ctx, input }) => refreshPayment(ctx.db, ctx.actor, input.paymentId)),
});
