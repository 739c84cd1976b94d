import type { Me, Wallet } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/** `GET /me` and `GET /wallet` (spec "GET /me and GET /wallet"): no scope, served while exchange is suspended. */
export function accountResources(ctx: Context) {
  return {
    me: {
      /**
       * The key's tenant, cell and `base_url`, integration, effective scopes, limits and wallet.
       * @throws ApiError `invalid_api_key`, `wrong_cell` (see `problem.correct_base_url`), `ip_not_allowed`, ...
       */
      get: (o?: CallOptions): Promise<Me> => unwrap(ctx.raw.GET("/me", { signal: o?.signal })),
    },
    wallet: {
      /** Balance (RUB), state, exchange, top-up address and daily spend. */
      get: (o?: CallOptions): Promise<Wallet> => unwrap(ctx.raw.GET("/wallet", { signal: o?.signal })),
    },
  };
}
