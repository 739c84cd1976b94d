import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrations, tenants } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import type { StaffActor } from "../actor";
import { assertChangeWithinRights, checkSettings, type Integration } from "./integrations";

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
 * Changes an integration's settings in one transaction, its row locked. The same checks as creation in the
 * console apply (spec "Authentication" 7 on the RU cell: personal-data scopes need recipient country RU, a
 * legal basis and a narrow allowlist), and the rule of issue 76 item 1 ({@link assertChangeWithinRights}):
 * scopes, role and the RU-cell transfer facts (country, legal basis, allowlist) together decide what every
 * existing key reads, so a change that lets the keys read any scope they did not read needs the member's
 * rights to cover every scope they read after it (a role set back to `full`, a country set to RU that lets
 * an operator's key read personal data, are such changes); a change that widens nothing needs no right.
 * Keys are unchanged; their effective scopes follow on the next request.
 * @throws ApiError `not_found` (missing, or another tenant's), `invalid_state` (revoked),
 *   `validation_failed` (every bad field), 403 `scope_missing` naming the right the editor lacks.
 */
export async function updateIntegration(
  db: Db,
  actor: StaffActor,
  integrationId: string,
  input: IntegrationSettings,
): Promise<Integration> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ integration: integrations, cell: tenants.cell })
      .from(integrations)
      .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
      .where(and(eq(integrations.id, integrationId), eq(integrations.tenantId, actor.tenantId)))
      .for("update", { of: integrations });
    if (!row) throw notFound("Integration");
    if (row.integration.status === "revoked")
      throw new ApiError("invalid_state", "A revoked integration cannot be changed; create a new one.");
    const { allowlist, scopes } = checkSettings(row.cell, { ...input, requireTransferReady: true });
    await assertChangeWithinRights(tx, actor, integrationId, {
      scopes,
      role: input.role,
      piiCountry: input.piiCountry,
      legalBasis: input.legalBasis,
      ipAllowlist: allowlist,
    });
    const [updated] = await tx
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
  });
}
