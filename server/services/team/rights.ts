import { ApiError, invalidField } from "@/server/errors";
import { RIGHTS, type Right } from "@/server/schemas/scopes";
import type { StaffActor } from "../actor";

/**
 * Rights from outside (console, CLI), deduplicated in the catalog's order.
 * @throws ApiError `validation_failed` on `field` naming every unknown right and the known ones.
 */
export function parseRights(rights: readonly string[], field = "/rights"): Right[] {
  const unknown = rights.filter((r) => !(RIGHTS as readonly string[]).includes(r));
  if (unknown.length)
    throw invalidField(field, "invalid_value", `Unknown rights: ${unknown.join(", ")}. Known: ${RIGHTS.join(", ")}.`);
  return RIGHTS.filter((r) => rights.includes(r));
}

/**
 * Nobody hands on a right they do not hold: every right in `rights` must be among the acting member's.
 * @throws ApiError 403 `scope_missing` naming the rights the actor lacks.
 */
export function assertMayGrant(actor: StaffActor, rights: readonly Right[]): void {
  const missing = rights.filter((r) => !actor.rights.includes(r));
  if (missing.length)
    throw new ApiError(
      "scope_missing",
      `You cannot give rights you do not hold in this tenant: ${missing.join(", ")}.`,
    );
}

/**
 * The team is managed by members with `manage_team`.
 * @throws ApiError 403 `scope_missing` without it.
 */
export function assertManagesTeam(actor: StaffActor): void {
  if (!actor.rights.includes("manage_team"))
    throw new ApiError("scope_missing", 'This needs the "manage_team" right in this tenant.');
}
