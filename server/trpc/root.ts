import { createCallerFactory, router } from "./init";
import { analyticsRouter } from "./routers/analytics";
import { integrationsRouter } from "./routers/integrations";
import { journalRouter } from "./routers/journal";
import { leadsRouter } from "./routers/leads";
import { articleGenerationRouter } from "./routers/article-generation";
import { articlesRouter } from "./routers/articles";
import { sitesRouter } from "./routers/sites";
import { strategistRouter } from "./routers/strategist";
import { operationsRouter } from "./routers/operations";
import { teamRouter } from "./routers/team";
import { settingsRouter } from "./routers/settings";
import { requestLogRouter } from "./routers/request-log";
import { sandboxRouter } from "./routers/sandbox";
import { tenantsRouter } from "./routers/tenants";
import { usageRouter } from "./routers/usage";
import { walletRouter } from "./routers/wallet";
import { webhooksRouter } from "./routers/webhooks";

/** The console's API. */
export const appRouter = router({
  tenants: tenantsRouter,
  integrations: integrationsRouter,
  journal: journalRouter,
  leads: leadsRouter,
  articles: articlesRouter,
  articleGeneration: articleGenerationRouter,
  strategist: strategistRouter,
  sites: sitesRouter,
  wallet: walletRouter,
  webhooks: webhooksRouter,
  operations: operationsRouter,
  team: teamRouter,
  settings: settingsRouter,
  requestLog: requestLogRouter,
  usage: usageRouter,
  analytics: analyticsRouter,
  sandbox: sandboxRouter,
});
export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
