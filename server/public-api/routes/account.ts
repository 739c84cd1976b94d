import { getMe, getWallet, knownMeText, knownWalletBody } from "@/server/services/account/account";
import { MeSchema, WalletSchema } from "@/server/schemas/account";
import { defineRoute, JsonText, ok } from "../define-route";

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
  // Without a promise when everything it reports was read with the key (the hot path).
  handler: ({ db, caller }) => {
    const text = knownMeText(caller);
    return text !== undefined ? ok(new JsonText(text)) : getMe(db, caller).then((me) => ok(me));
  },
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
  handler: ({ db, caller }) => {
    const known = knownWalletBody(caller);
    return known ? ok(known) : getWallet(db, caller).then((w) => ok(w));
  },
});
