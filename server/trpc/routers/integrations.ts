import { z } from "zod";
import { SCOPES, ROLE_NAMES } from "@/server/schemas/scopes";
import { getIntegration, listIntegrations, listKeys } from "@/server/services/integrations/integration-queries";
import { createIntegration, setIntegrationStatus } from "@/server/services/integrations/integrations";
import { updateIntegration } from "@/server/services/integrations/integration-update";
import { ROLL_DELAY_NAMES, rollKey } from "@/server/services/keys/key-roll";
import { issueKey, renameKey, revokeKey } from "@/server/services/keys/keys";
import { router, tenantProcedure, withRight } from "../init";

const manage = withRight("manage_integrations");
const list = z.array(z.string().trim().min(1)).max(50);
/** A key's name as the forms send it; the service trims it, checks its length and stores "" as none. */
const keyName = z.string().max(1000).nullish();
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
      const i = await setIntegrationStatus(ctx.db, input.integrationId, input.status, ctx.actor.tenantId, ctx.actor);
      return { id: i.id, status: i.status };
    }),
  keys: tenantProcedure.input(z.object({ integrationId: z.uuid() })).query(async ({ ctx, input }) => {
    await getIntegration(ctx.db, ctx.actor.tenantId, input.integrationId);
    return listKeys(ctx.db, ctx.actor, input.integrationId);
  }),
  issueKey: manage
    .input(
      z.object({
        integrationId: z.uuid(),
        name: keyName,
        mode: z.enum(["live", "test"]),
        expiresAt: z.iso.datetime({ offset: true }).nullable(),
        ipAllowlist: list.nullable(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const k = await issueKey(ctx.db, {
        integrationId: input.integrationId,
        tenantId: ctx.actor.tenantId,
        name: input.name,
        mode: input.mode,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        ipAllowlist: input.ipAllowlist,
        issuer: ctx.actor,
      });
      // The only time the full key leaves the server.
      return { key: k.key, keyId: k.keyId, name: k.name, mode: k.mode, expiresAt: k.expiresAt.toISOString() };
    }),
  renameKey: manage
    .input(z.object({ keyId: z.string().min(1), name: keyName }))
    .mutation(({ ctx, input }) => renameKey(ctx.db, input.keyId, input.name ?? null, ctx.actor)),
  /**
   * A new key with the old one's settings; the old key expires after `delay` (now, 1h, 24h, 7d). The
   * same rights as issuing a key: the new key's scopes must be covered by the member's rights.
   */
  rollKey: manage
    .input(z.object({ keyId: z.string().min(1), delay: z.enum(ROLL_DELAY_NAMES) }))
    .mutation(async ({ ctx, input }) => {
      const r = await rollKey(ctx.db, {
        keyId: input.keyId,
        delay: input.delay,
        tenantId: ctx.actor.tenantId,
        issuer: ctx.actor,
      });
      // The only time the new key's secret leaves the server.
      return {
        key: r.key.key,
        keyId: r.key.keyId,
        name: r.key.name,
        mode: r.key.mode,
        expiresAt: r.key.expiresAt.toISOString(),
        old: { keyId: r.old.keyId, expiresAt: r.old.expiresAt.toISOString() },
      };
    }),
  revokeKey: manage.input(z.object({ keyId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const r = await revokeKey(ctx.db, input.keyId, ctx.actor);
    return { keyId: r.keyId, revokedAt: r.revokedAt.toISOString() };
  }),
});
