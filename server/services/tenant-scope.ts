import { and, eq, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Actor } from "./actor";

/**
 * The one place where a tenant's data is scoped (issue 69, spec "Me" `key.mode`): every tenant-owned row
 * belongs to one tenant and one mode (`livemode` true = live, false = the tenant's sandbox), and every
 * query a service makes filters by both, taken from the actor. A service never takes the mode from a
 * request; the public API door puts it on the actor at authentication (a `test` key of a tenant with the
 * preview `test-mode` is the sandbox), the console from its "Test mode" switch.
 */

/** The mode the actor acts in: true = live data, false = the sandbox. Staff, operator and system default to live. */
export function livemodeOf(actor: Actor): boolean {
  return actor.livemode ?? true;
}

/** A table with the two owner columns every tenant-owned table has. */
export interface OwnedTable {
  tenantId: AnyPgColumn;
  livemode: AnyPgColumn;
}

/**
 * `tenant_id = actor.tenantId and livemode = <actor's mode>` for `table`: the filter of every read, update
 * and delete of a tenant-owned row. A row of another tenant or of the other mode then reads as missing.
 */
export function ownedBy(table: OwnedTable, actor: Actor): SQL {
  return and(eq(table.tenantId, actor.tenantId), eq(table.livemode, livemodeOf(actor))) as SQL;
}

/** `{tenantId, livemode}` of the actor: spread into every insert of a tenant-owned row. */
export function ownerOf(actor: Actor): { tenantId: string; livemode: boolean } {
  return { tenantId: actor.tenantId, livemode: livemodeOf(actor) };
}
