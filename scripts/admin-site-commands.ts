import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { tenants } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { createSite } from "@/server/services/articles/sites";
import { need, usageError, type Command } from "./admin-args";

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Commands of the tenant's sites (issue 71): a site a connector publishes to, with its token shown once. */
export const SITE_COMMANDS: Record<string, Command> = {
  "site:create": {
    usage: "--tenant ID --domain DOMAIN [--drafts-only] (a live site; prints its connector token once, stored hashed)",
    run: async (db: Db, o) => {
      const tenantId = need(o, "tenant");
      const domain = need(o, "domain").trim().toLowerCase();
      if (!DOMAIN_RE.test(domain)) throw usageError("--domain must be a host name such as blog.example.com");
      const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
      if (!tenant) throw new ApiError("not_found", `Tenant ${tenantId} was not found.`);
      const r = await createSite(db, { tenantId, livemode: true }, { domain, draftsOnly: o["drafts-only"] === true });
      return { site_id: r.siteId, connector_token: r.connectorToken };
    },
  },
};
