import type { Cell } from "@/server/env";
import type { Scope } from "./access/scopes";
import type { RateLimits } from "./limits/rate-limits";

/**
 * Who is acting, passed to every service as `(db, actor, input)`. Every query a service makes is
 * filtered by `tenantId`, so another tenant's row reads as missing.
 */
export interface Actor {
  tenantId: string;
  /** Set when an integration acts through an API key. */
  integrationId?: string;
  /** Key mode of the calling key (`live` or `test`). */
  keyMode?: "live" | "test";
  /** Set when a staff member acts through the console. */
  staffUserId?: string;
  /** `operator` when platform staff act through `npm run admin`. */
  via: "api" | "console" | "operator";
}

/** The authenticated caller of a public API request: the actor plus what the pipeline checked. */
export interface ApiCaller extends Actor {
  via: "api";
  integrationId: string;
  keyMode: "live" | "test";
  tenant: { id: string; name: string; cell: Cell; crmMode: string; mainDomain: string | null };
  integration: {
    id: string;
    name: string;
    piiCountry: string | null;
    legalBasis: string | null;
    dailySpendLimitMinor: bigint | null;
    /** Spend of the integration today (UTC day), RUB minor units, as read with the key; undefined = not read. */
    spentTodayMinor?: bigint;
  };
  /** The integration's channel of type `api` as read with the key; undefined = not read (then it is queried). */
  apiChannelId?: string | null;
  /** The tenant's wallet as read with the key (one query for both); null when the tenant has no wallet row. */
  walletRow: { balanceMinor: bigint; blocked: boolean; lowMinor: bigint } | null;
  key: { id: string; keyId: string; mode: "live" | "test"; expiresAt: Date; ipAllowlist: string[] | null };
  scopes: Scope[];
  /** The key's rate limits (its override, else its tenant's, else the starting values), per minute. */
  limits: RateLimits;
  /** Limits of the tenant-wide buckets, per minute. */
  tenantLimits: RateLimits;
}
