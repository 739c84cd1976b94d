import { getMe, getWallet } from "@/server/services/account/account";
import { MeSchema, WalletSchema } from "@/server/schemas/account";
import { defineRoute, ok } from "../define-route";

/** `GET /me` (spec "GET /me and GET /wallet"): no scope, served while exchange is suspended. */
export const getMeRoute = defineRoute({
  operationId: "getMe",
  summary: "Who the key is, its scopes, limits and the wallet",
  method: "GET",
  path: "/me",
  scope: null,
  rate: "read",
  walletExempt: true,
  responses: { 200: MeSchema },
  handler: async ({ db, caller }) => ok(await getMe(db, caller)),
});

/** `GET /wallet`: no scope, served while exchange is suspended. */
export const getWalletRoute = defineRoute({
  operationId: "getWallet",
  summary: "Wallet balance, state and exchange",
  method: "GET",
  path: "/wallet",
  scope: null,
  rate: "read",
  walletExempt: true,
  responses: { 200: WalletSchema },
  handler: async ({ db, caller }) => ok(await getWallet(db, caller)),
});
