import type { AnyRoute } from "../define-route";
import { Router } from "../router";
import { getMeRoute, getWalletRoute } from "./account";
import { createCardRoute, deleteCardRoute, getCardRoute, listCardsRoute, updateCardRoute } from "./cards";
import { PLANNED_ROUTES } from "./planned";
import { WEBHOOK_ROUTES } from "./webhooks";

/** Every Available route of the public API, in the order of the spec. */
export const ROUTES: AnyRoute[] = [
  getMeRoute,
  getWalletRoute,
  listCardsRoute,
  createCardRoute,
  getCardRoute,
  updateCardRoute,
  deleteCardRoute,
  // after dashboards, before operations (spec order)
  ...WEBHOOK_ROUTES,
];

/** The router of `/api/public/v1`. */
export const publicRouter = new Router(ROUTES, PLANNED_ROUTES);
