import { z } from "zod";
import { MoneySchema, Timestamp } from "./common";

const WalletState = z.enum(["ok", "low", "negative", "blocked", "unknown"]);
const DailySpend = z.object({ limit: MoneySchema.nullable(), used: MoneySchema });

/** Answer of `GET /wallet` (spec "Wallet"). */
export const WalletSchema = z.object({
  balance: MoneySchema.nullable(),
  state: WalletState,
  exchange: z.enum(["active", "suspended"]),
  topup_url: z.url(),
  daily_spend: DailySpend.nullable(),
});
export type WalletBody = z.infer<typeof WalletSchema>;

/** Answer of `GET /me` (spec "Me"). */
export const MeSchema = z.object({
  tenant: z.object({ id: z.string(), name: z.string() }),
  cell: z.enum(["ru", "en", "id"]),
  base_url: z.url(),
  integration: z.object({ id: z.string(), name: z.string() }),
  channel_id: z.string().nullable(),
  key: z.object({
    key_id: z.string(),
    mode: z.enum(["live", "test"]),
    scopes: z.array(z.string()),
    expires_at: Timestamp,
    ip_allowlist: z.array(z.string()).nullable(),
  }),
  limits: z.object({
    read_per_min: z.number().int(),
    write_per_min: z.number().int(),
    paid_per_min: z.number().int(),
    paid_concurrency: z.number().int(),
  }),
  wallet: z.object({
    balance: MoneySchema.nullable(),
    state: WalletState,
    exchange: z.enum(["active", "suspended"]),
    topup_url: z.url(),
    daily_spend: DailySpend,
  }),
  crm_mode: z.string(),
});
export type MeBody = z.infer<typeof MeSchema>;
