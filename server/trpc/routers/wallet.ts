import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { formatMinor, parseAmount } from "@/server/lib/money";
import { readWallet, topupUrl } from "@/server/services/wallet/wallet-state";
import { dailySpendByIntegration, ledgerPage, setDailySpendLimit } from "@/server/services/wallet/wallet-history";
import {
  findPaymentProvider,
  PAYMENT_PROVIDER_IDS,
  PAYMENT_PROVIDERS,
} from "@/server/services/wallet/payment-provider";
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

/** Wallet: balance, state, ledger, daily spend per integration, top-up (needs `topup_wallet`). */
export const walletRouter = router({
  get: tenantProcedure.query(async ({ ctx }) => {
    const w = await readWallet(ctx.db, ctx.actor.tenantId);
    return {
      balance: w.balanceMinor === null ? null : formatMinor(w.balanceMinor),
      currency: "RUB",
      state: w.state,
      exchange: w.exchange,
      topupUrl: topupUrl(ctx.actor.tenantId),
      canTopUp: ctx.rights.includes("topup_wallet"),
      providers: Object.values(PAYMENT_PROVIDERS).map((p) => ({ id: p.id, label: p.label })),
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
    .query(({ ctx, input }) => ledgerPage(ctx.db, ctx.actor.tenantId, input.limit, input.cursor ?? null)),
  dailySpend: tenantProcedure.query(({ ctx }) => dailySpendByIntegration(ctx.db, ctx.actor.tenantId)),
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
    .input(
      z.object({
        amount: amountText,
        provider: z
          .enum(PAYMENT_PROVIDER_IDS, {
            error: `must be one of the payment providers: ${PAYMENT_PROVIDER_IDS.join(", ")}`,
          })
          .default("manual"),
        note: z.string().max(200).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const provider = findPaymentProvider(input.provider);
      if (!provider) throw new TRPCError({ code: "BAD_REQUEST", message: "Unknown payment provider." });
      const amountMinor = toMinor(input.amount, "amount");
      if (amountMinor <= 0n)
        throw new ApiError("validation_failed", "The amount must be greater than 0.", {
          errors: [{ field: "/amount", code: "out_of_range", message: "The amount must be greater than 0." }],
        });
      const w = await provider.topUp(ctx.db, {
        tenantId: ctx.actor.tenantId,
        amountMinor,
        staffUserId: ctx.actor.staffUserId,
        note: input.note,
      });
      return { balance: formatMinor(w.balanceMinor) };
    }),
});
