import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { tenants } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import { isPreviewFeature, PREVIEW_FEATURES, type PreviewFeature } from "@/server/schemas/previews";

/** A tenant's previews: every known feature with whether it is on. */
export type PreviewMap = Record<PreviewFeature, boolean>;

function toMap(on: readonly string[]): PreviewMap {
  return Object.fromEntries(PREVIEW_FEATURES.map((f) => [f, on.includes(f)])) as PreviewMap;
}

/**
 * Switches a preview feature on or off for a tenant (`npm run admin -- preview:set`). Takes effect on the
 * tenant's next request (the key query reads it).
 * @returns every known preview feature of the tenant with its state, e.g. `{"conversation-writes": true}`.
 * @throws ApiError `validation_failed` on `/feature` for an unknown feature; `not_found` for no tenant.
 */
export async function setPreview(db: Db, tenantId: string, feature: string, enabled: boolean): Promise<PreviewMap> {
  if (!isPreviewFeature(feature))
    throw invalidField(
      "/feature",
      "invalid_value",
      `Unknown preview feature "${feature}". Known: ${PREVIEW_FEATURES.join(", ")}.`,
    );
  const [t] = await db
    .update(tenants)
    .set({
      previews: enabled
        ? sql`array(select distinct unnest(${tenants.previews} || array[${feature}]::text[]) order by 1)`
        : sql`array_remove(${tenants.previews}, ${feature})`,
      updatedAt: new Date(),
    })
    .where(eq(tenants.id, tenantId))
    .returning({ previews: tenants.previews });
  if (!t) throw notFound("Tenant");
  return toMap(t.previews);
}

/** A tenant's previews (console, CLI). @throws ApiError `not_found`. */
export async function getPreviews(db: Db, tenantId: string): Promise<PreviewMap> {
  const [t] = await db.select({ previews: tenants.previews }).from(tenants).where(eq(tenants.id, tenantId));
  if (!t) throw notFound("Tenant");
  return toMap(t.previews);
}
