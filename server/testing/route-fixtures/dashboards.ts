import type { IdRouteFixture } from "../route-fixtures";

/** Isolation fixtures of this domain's id routes (see ID_ROUTE_FIXTURES). */
export const DASHBOARD_FIXTURES: Record<string, IdRouteFixture> = {};
