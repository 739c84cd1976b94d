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

/**
 * Who owns rows: a tenant and a mode. Every {@link Actor} is one; a background job passes the
 * `{tenantId, livemode}` of the row it works on (DESIGN "Test mode": jobs take the mode from the row).
 * `livemode` absent = live, as for staff, operator and system actors.
 */
export type Owner = Pick<Actor, "tenantId"> & { livemode?: boolean };

/** The mode the actor acts in: true = live data, false = the sandbox. Staff, operator and system default to live. */
export function livemodeOf(actor: Owner): boolean {
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
export function ownedBy(table: OwnedTable, actor: Owner): SQL {
  return and(eq(table.tenantId, actor.tenantId), eq(table.livemode, livemodeOf(actor))) as SQL;
}

/** `{tenantId, livemode}` of the actor: spread into every insert of a tenant-owned row. */
export function ownerOf(actor: Owner): { tenantId: string; livemode: boolean } {
  return { tenantId: actor.tenantId, livemode: livemodeOf(actor) };
}
