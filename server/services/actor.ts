import type { Cell } from "@/server/env";
import type { Right, Scope } from "@/server/schemas/scopes";
import type { RateLimits } from "./limits/rate-limits";

/**
 * Who acts, passed to every service as `(db, actor, input)` (DESIGN "One process, several doors, one
 * core"). Every query a service makes is filtered by `actor.tenantId`, so another tenant's row reads as
 * missing. The actor is narrow on purpose: a service never sees a request, a tRPC context or a key.
 */
export type Actor = IntegrationActor | StaffActor | OperatorActor | SystemActor;

/** An integration acting through an API key (the public API door). */
export interface IntegrationActor {
  via: "api";
  tenantId: string;
  integrationId: string;
  /** Public key id of the calling key (`key_id`), for journals and logs; never the secret. */
  keyId: string;
  /** Key mode: `test` keys see and write test data only, and are charged nothing. */
  keyMode: "live" | "test";
  /** Effective scopes of the key (spec "Authentication" 5). */
  scopes: readonly Scope[];
  /** The tenant's cell (spec general fact 1); the RU personal-data rule applies in `ru`. */
  cell: Cell;
  /**
   * The tenant's main domain as read with the key (key cache, dropped on any change of the tenant row),
   * so answers that expand addresses (cards) need no tenant query; undefined = not read, query it.
   */
  mainDomain?: string | null;
}

/** A staff member acting in one tenant through the console, with the rights of their membership. */
export interface StaffActor {
  via: "console";
  tenantId: string;
  staffUserId: string;
  rights: readonly Right[];
}

/** Platform staff acting through the operator CLI (`npm run admin`). */
export interface OperatorActor {
  via: "operator";
  tenantId: string;
}

/** The platform itself: background jobs and the demo seed. */
export interface SystemActor {
  via: "system";
  tenantId: string;
}

/** `integration:<id>`, `staff:<id>`, `operator` or `system`: who changed a row, as ledgers and logs write it. */
export function actorLabel(actor: Actor): string {
  switch (actor.via) {
    case "api":
      return `integration:${actor.integrationId}`;
    case "console":
      return `staff:${actor.staffUserId}`;
    default:
      return actor.via;
  }
}

/**
 * What authenticating a public request established (server/services/access/authenticate.ts): the acting
 * integration plus the facts of its key that `GET /me`, `GET /wallet`, the rate limits and the wallet gate
 * report or check. Only the public API door and the account service see it; other services get `actor`.
 */
export interface ApiCaller {
  /** The narrow actor every other service receives. */
  actor: IntegrationActor;
  tenantId: string;
  integrationId: string;
  keyMode: "live" | "test";
  tenant: { id: string; name: string; cell: Cell; crmMode: string; mainDomain: string | null };
  /** Preview features of the tenant (server/schemas/previews.ts). */
  previews: readonly string[];
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
