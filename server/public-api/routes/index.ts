import type { AnyRoute } from "../define-route";
import { Router } from "../router";
import { getMeRoute, getWalletRoute } from "./account";
import { ANALYTICS_ROUTES } from "./analytics";
import { createCardRoute, deleteCardRoute, getCardRoute, listCardsRoute, updateCardRoute } from "./cards";
import { ARTICLE_ROUTES } from "./articles";
import { ARTICLE_WRITE_ROUTES } from "./article-writes";
import { ARTICLE_GENERATION_ROUTES } from "./article-generation";
import { STRATEGIST_WRITE_ROUTES } from "./strategist-writes";
import { CONVERSATION_ROUTES } from "./conversations";
import { CONVERSATION_WRITE_ROUTES } from "./conversation-writes";
import { DASHBOARD_ROUTES } from "./dashboards";
import { EVENT_ROUTES } from "./events";
import { INTAKE_ROUTES } from "./intake";
import { LEAD_ROUTES } from "./leads";
import { LEAD_WRITE_ROUTES } from "./lead-writes";
import { OPERATION_ROUTES } from "./operations";
import { PLANNED_ROUTES } from "./planned";
import { STRATEGIST_ROUTES } from "./strategist";
import { TEST_HELPER_EVENT_ROUTES } from "./test-helpers-events";
import { TEST_HELPER_WALLET_ROUTES } from "./test-helpers-wallet";
import { WEBHOOK_ROUTES } from "./webhooks";

/** Every Available route of the public API, in the order of the spec. */
export const ROUTES: AnyRoute[] = [
  getMeRoute,
  getWalletRoute,
  ...CONVERSATION_ROUTES,
  listCardsRoute,
  createCardRoute,
  getCardRoute,
  updateCardRoute,
  deleteCardRoute,
  ...LEAD_ROUTES,
  ...ARTICLE_ROUTES,
  ...STRATEGIST_ROUTES,
  ...DASHBOARD_ROUTES,
  ...WEBHOOK_ROUTES,
  ...EVENT_ROUTES,
  ...OPERATION_ROUTES,
];

/** Routes of preview features (`route.preview`): Planned routes released per tenant (server/schemas/previews.ts). */
export const PREVIEW_ROUTES: AnyRoute[] = [
  ...CONVERSATION_WRITE_ROUTES,
  ...LEAD_WRITE_ROUTES,
  ...ARTICLE_WRITE_ROUTES,
  ...ARTICLE_GENERATION_ROUTES,
  ...STRATEGIST_WRITE_ROUTES,
  ...INTAKE_ROUTES,
  ...ANALYTICS_ROUTES,
  ...TEST_HELPER_WALLET_ROUTES,
  ...TEST_HELPER_EVENT_ROUTES,
];

/** The router of `/api/public/v1`. */
export const publicRouter = new Router(ROUTES, PLANNED_ROUTES, PREVIEW_ROUTES);
