import { z } from "zod";

/** A Money amount in RUB as the wire writes it (spec "Money"): optional minus, digits, exactly 2 decimals. */
const RubAmount = z
  .string()
  .regex(/^-?\d{1,15}\.\d{2}$/, 'must be an amount in RUB with 2 decimals, such as "-50.00" or "1500.00"');

/**
 * Body of `POST /test-helpers/wallet` (issue 69 item 4): exactly one of `balance` (the sandbox wallet's new
 * balance in RUB; below 0 suspends exchange) or `state` (`blocked` suspends exchange, `ok` lifts a block).
 */
export const TestWalletSchema = z
  .strictObject({
    balance: RubAmount.optional().meta({
      description: 'The sandbox balance to set, RUB with 2 decimals ("-50.00" reads `negative`: exchange suspended).',
    }),
    state: z.enum(["blocked", "ok"]).optional().meta({
      description: "`blocked` suspends exchange; `ok` lifts a block (the balance is kept).",
    }),
  })
  .superRefine((b, ctx) => {
    const given = (b.balance !== undefined ? 1 : 0) + (b.state !== undefined ? 1 : 0);
    if (given !== 1)
      ctx.addIssue({
        code: "custom",
        path: [],
        params: { code: given === 0 ? "required" : "invalid_value" },
        message: 'Send exactly one of "balance" or "state".',
      });
  })
  .meta({
    description:
      'Exactly one of `balance` (e.g. `{"balance": "-50.00"}`) or `state` (`{"state": "blocked"}`, `{"state": "ok"}`).',
  });
export type TestWalletBody = z.infer<typeof TestWalletSchema>;
