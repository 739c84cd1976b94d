import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, tenants } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import type { Scope } from "@/server/schemas/scopes";
import { rightsMissingToIssue } from "../access/scopes";
import type { StaffActor } from "../actor";
import { checkSettings, type Integration } from "./integrations";

/** The settings of an integration that staff may change after creation (the console's edit form). */
export interface IntegrationSettings {
  name: string;
  role: string;
  scopes: string[];
  /** ISO 3166-1 alpha-2 country where the receiving system is hosted; null = not given. */
  piiCountry: string | null;
  legalBasis: string | null;
  /** Addresses and CIDR networks; null or empty = any address. */
  ipAllowlist: string[] | null;
}

/**
 * Changes an integration's settings in one statement. The same checks as creation in the console apply
 * (spec "Authentication" 7 on the RU cell: personal-data scopes need recipient country RU, a legal basis
 * and a narrow allowlist), and the rule of issuing keys (SECURITY.md "Rights"): a member may not add a
 * scope their own rights do not cover, since every existing key of the integration would gain it at once.
 * Scopes already held may stay. Keys are unchanged; their effective scopes follow on the next request.
 * @throws ApiError `not_found` (missing, or another tenant's), `invalid_state` (revoked),
 *   `validation_failed` (every bad field), 403 `scope_missing` naming the right the editor lacks.
 */
export async function updateIntegration(
  db: Db,
  actor: StaffActor,
  integrationId: string,
  input: IntegrationSettings,
): Promise<Integration> {
  const [row] = await db
    .select({ integration: integrations, cell: tenants.cell })
    .from(integrations)
    .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
    .where(and(eq(integrations.id, integrationId), eq(integrations.tenantId, actor.tenantId)));
  if (!row) throw notFound("Integration");
  if (row.integration.status === "revoked")
    throw new ApiError("invalid_state", "A revoked integration cannot be changed; create a new one.");
  const { allowlist, scopes } = checkSettings(row.cell, { ...input, requireTransferReady: true });
  const added = scopes.filter((s) => !(row.integration.scopes as string[]).includes(s)) as Scope[];
  const missing = rightsMissingToIssue(added, actor.rights);
  if (missing.length) {
    const what = missing.map((m) => `"${m.right}" (for ${m.scopes.join(", ")})`).join(" and ");
    throw new ApiError(
      "scope_missing",
      `Adding these scopes needs the ${what} right: every key of the integration would carry them.`,
    );
  }
  const [updated] = await db
    .update(integrations)
    .set({
      name: input.name.trim(),
      role: input.role,
      scopes,
      piiCountry: input.piiCountry,
      legalBasis: input.legalBasis,
      ipAllowlist: allowlist,
    })
    .where(and(eq(integrations.id, integrationId), eq(integrations.tenantId, actor.tenantId)))
    .returning();
  return updated;
}
