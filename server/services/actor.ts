import type { Cell } from "@/server/env";
import type { Right, Scope } from "@/server/schemas/scopes";
import type { RateLimits } from "./limits/rate-limits";

/**
 * Who acts, passed to every service as `(db, actor, input)` (DESIGN "One process, several doors, one
 * core"). Every query a service makes is filtered by `actor.tenantId` and the actor's mode together
 * (server/services/tenant-scope.ts), so another tenant's row, or a row of the other mode (live or the
 * sandbox), reads as missing. The actor is narrow on purpose: a service never sees a request, a tRPC
 * context or a key, and takes the mode from the actor only.
 */
export type Actor = IntegrationActor | StaffActor | OperatorActor | SystemActor;

/** An integration acting through an API key (the public API door). */
export interface IntegrationActor {
  via: "api";
  tenantId: string;
  integrationId: string;
  /** Public key id of the calling key (`key_id`), for journals and logs; never the secret. */
  keyId: string;
  /**
   * Key mode. Without the tenant's preview `test-mode` a `test` key works in live data and is charged
   * nothing (as before test mode); with it, the key lives in the sandbox (`livemode` false).
   */
  keyMode: "live" | "test";
  /**
   * Which world the actor reads and writes (issue 69): true = live data, false = the tenant's sandbox.
   * False only for a `test` key of a tenant with the preview `test-mode`.
   */
  livemode: boolean;
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
  /** The console's "Test mode" switch: false shows and changes the sandbox; absent = live. */
  livemode?: boolean;
}

/** Platform staff acting through the operator CLI (`npm run admin`). */
export interface OperatorActor {
  via: "operator";
  tenantId: string;
  /** False to act in the tenant's sandbox (`sandbox:reset`); absent = live. */
  livemode?: boolean;
}

/** The platform itself: background jobs and the demo seed. */
export interface SystemActor {
  via: "system";
  tenantId: string;
  /** False for work on the tenant's sandbox (its seeding, a test-mode job); absent = live. */
  livemode?: boolean;
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
  /**
   * Whether the tenant's sandbox has been seeded (`tenants.sandbox_seeded_at` set), as read with the key:
   * a sandbox actor's request seeds it first when not (server/services/sandbox/seed-sandbox.ts).
   */
  sandboxSeeded: boolean;
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
