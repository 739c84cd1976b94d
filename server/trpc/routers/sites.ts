import { z } from "zod";
import { createSite, listSites, revokeSite, rotateSiteToken, siteDomainInput } from "@/server/services/articles/sites";
import { router, tenantProcedure, withRight } from "../init";

/**
 * The console's Sites (issue 71 item 6): the tenant's websites a site connector publishes to, in the
 * console's mode. Every member sees the list (domain, status, drafts-only ceiling: what `GET /sites` answers
 * to any key with `articles:read`) and picks a site when publishing. Adding a site, rotating its token and
 * revoking it hand out or withdraw a credential like an API key: `manage_integrations`, the right of the
 * Integrations and keys page (docs/console.md). A token is answered once, by create and rotate only.
 */
export const sitesRouter = router({
  list: tenantProcedure.query(({ ctx }) => listSites(ctx.db, ctx.actor)),
  create: withRight("manage_integrations")
    .input(z.object({ domain: z.string().max(300), draftsOnly: z.boolean().default(false) }))
    .mutation(({ ctx, input }) =>
      createSite(ctx.db, ctx.actor, { domain: siteDomainInput(input.domain), draftsOnly: input.draftsOnly }),
    ),
  rotate: withRight("manage_integrations")
    .input(z.object({ id: z.uuid() }))
    .mutation(({ ctx, input }) => rotateSiteToken(ctx.db, ctx.actor, input.id)),
  revoke: withRight("manage_integrations")
    .input(z.object({ id: z.uuid() }))
    .mutation(async ({ ctx, input }) => {
      await revokeSite(ctx.db, ctx.actor, input.id);
      return { revoked: true as const };
    }),
});
