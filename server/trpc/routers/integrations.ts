import { z } from "zod";
import { SCOPES, ROLE_NAMES } from "@/server/schemas/scopes";
import { getIntegration, listIntegrations, listKeys } from "@/server/services/integrations/integration-queries";
import { createIntegration, setIntegrationStatus } from "@/server/services/integrations/integrations";
import { updateIntegration } from "@/server/services/integrations/integration-update";
import { issueKey, revokeKey } from "@/server/services/keys/keys";
import { router, tenantProcedure, withRight } from "../init";

const manage = withRight("manage_integrations");
const list = z.array(z.string().trim().min(1)).max(50);
/** An integration's settings as the create and edit forms send them. */
const settings = z.object({
  name: z.string(),
  role: z.enum(ROLE_NAMES as [string, ...string[]]),
  scopes: z.array(z.enum(SCOPES)).min(1),
  piiCountry: z.string().trim().toUpperCase().nullable(),
  legalBasis: z.string().trim().nullable(),
  ipAllowlist: list.nullable(),
});

/** Integrations and their keys; changes need the `manage_integrations` right. */
export const integrationsRouter = router({
  list: tenantProcedure.query(({ ctx }) => listIntegrations(ctx.db, ctx.actor.tenantId)),
  get: tenantProcedure
    .input(z.object({ integrationId: z.uuid() }))
    .query(({ ctx, input }) => getIntegration(ctx.db, ctx.actor.tenantId, input.integrationId)),
  create: manage.input(settings).mutation(async ({ ctx, input }) => {
    const i = await createIntegration(ctx.db, ctx.actor.tenantId, {
      name: input.name,
      role: input.role,
      scopes: input.scopes,
      ownerStaffUserId: ctx.actor.staffUserId,
      piiCountry: input.piiCountry || null,
      legalBasis: input.legalBasis || null,
      ipAllowlist: input.ipAllowlist,
      requireTransferReady: true,
    });
    return { id: i.id };
  }),
  update: manage.input(settings.extend({ integrationId: z.uuid() })).mutation(async ({ ctx, input }) => {
    const i = await updateIntegration(ctx.db, ctx.actor, input.integrationId, {
      name: input.name,
      role: input.role,
      scopes: input.scopes,
      piiCountry: input.piiCountry || null,
      legalBasis: input.legalBasis || null,
      ipAllowlist: input.ipAllowlist,
    });
    return { id: i.id };
  }),
  setStatus: manage
    .input(z.object({ integrationId: z.uuid(), status: z.enum(["active", "suspended", "revoked"]) }))
    .mutation(async ({ ctx, input }) => {
      const i = await setIntegrationStatus(ctx.db, input.integrationId, input.status, ctx.actor.tenantId);
      return { id: i.id, status: i.status };
    }),
  keys: tenantProcedure.input(z.object({ integrationId: z.uuid() })).query(async ({ ctx, input }) => {
    await getIntegration(ctx.db, ctx.actor.tenantId, input.integrationId);
    return listKeys(ctx.db, ctx.actor.tenantId, input.integrationId);
  }),
  issueKey: manage
    .input(
      z.object({
        integrationId: z.uuid(),
        mode: z.enum(["live", "test"]),
        expiresAt: z.iso.datetime({ offset: true }).nullable(),
        ipAllowlist: list.nullable(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const k = await issueKey(ctx.db, {
        integrationId: input.integrationId,
        tenantId: ctx.actor.tenantId,
        mode: input.mode,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        ipAllowlist: input.ipAllowlist,
        issuer: ctx.actor,
      });
      // The only time the full key leaves the server.
      return { key: k.key, keyId: k.keyId, mode: k.mode, expiresAt: k.expiresAt.toISOString() };
    }),
  revokeKey: manage.input(z.object({ keyId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const r = await revokeKey(ctx.db, input.keyId, ctx.actor.tenantId);
    return { keyId: r.keyId, revokedAt: r.revokedAt.toISOString() };
  }),
});
