import type { Db } from "@/db/client";
import { events } from "@/db/schema";
import { createCard } from "@/server/services/cards/cards";
import type { AnyRoute } from "@/server/public-api/define-route";
import type { TenantFixture } from "./fixtures";
import { ARTICLE_FIXTURES } from "./route-fixtures/articles";
import { CONVERSATION_FIXTURES } from "./route-fixtures/conversations";
import { DASHBOARD_FIXTURES } from "./route-fixtures/dashboards";
import { LEAD_FIXTURES } from "./route-fixtures/leads";
import { OPERATION_FIXTURES } from "./route-fixtures/operations";
import { STRATEGIST_FIXTURES } from "./route-fixtures/strategist";
import { WEBHOOK_DELIVERY_FIXTURES } from "./route-fixtures/webhook-deliveries";
import { insertSubscription } from "./webhook-fixture";

/**
 * How the route matrix makes a real resource of the owner tenant for an id route (returns the concrete
 * path), a path of a resource that does not exist, and the body to send (writes).
 */
export interface IdRouteFixture {
  make(db: Db, owner: TenantFixture): Promise<string>;
  missing(): Promise<string>;
  body?: unknown;
  /** Request headers the route needs beside the key, for the path `make` or `missing` gave (`If-Match`). */
  headers?(db: Db, path: string): Promise<Record<string, string>>;
}

/**
 * For every route whose path takes an id: how to make a real resource of the owner tenant (returns
 * the concrete path), a path of a resource that does not exist, and the body to send (writes).
 * The route matrix fails for an id route missing here, so a new route cannot skip the isolation test.
 */
export const ID_ROUTE_FIXTURES: Record<string, IdRouteFixture> = {
  ...CONVERSATION_FIXTURES,
  ...LEAD_FIXTURES,
  ...ARTICLE_FIXTURES,
  ...STRATEGIST_FIXTURES,
  ...DASHBOARD_FIXTURES,
  ...OPERATION_FIXTURES,
  ...WEBHOOK_DELIVERY_FIXTURES,
  getCard: { make: async (db, o) => `/cards/${await card(db, o)}`, missing: async () => "/cards/never-existed" },
  updateCard: {
    make: async (db, o) => `/cards/${await card(db, o)}`,
    missing: async () => "/cards/never-existed",
    body: { name: "Changed" },
  },
  deleteCard: { make: async (db, o) => `/cards/${await card(db, o)}`, missing: async () => "/cards/never-existed" },
  getWebhook: {
    make: async (db, o) => `/webhooks/${await webhook(db, o)}`,
    missing: async () => `/webhooks/${crypto.randomUUID()}`,
  },
  updateWebhook: {
    make: async (db, o) => `/webhooks/${await webhook(db, o)}`,
    missing: async () => `/webhooks/${crypto.randomUUID()}`,
    body: { description: "Changed" },
  },
  deleteWebhook: {
    make: async (db, o) => `/webhooks/${await webhook(db, o)}`,
    missing: async () => `/webhooks/${crypto.randomUUID()}`,
  },
  rotateWebhookSecret: {
    make: async (db, o) => `/webhooks/${await webhook(db, o)}/rotate-secret`,
    missing: async () => `/webhooks/${crypto.randomUUID()}/rotate-secret`,
  },
  testWebhook: {
    make: async (db, o) => `/webhooks/${await webhook(db, o)}/test`,
    missing: async () => `/webhooks/${crypto.randomUUID()}/test`,
  },
  listWebhookDeliveries: {
    make: async (db, o) => `/webhooks/${await webhook(db, o)}/deliveries`,
    missing: async () => `/webhooks/${crypto.randomUUID()}/deliveries`,
  },
  getEvent: {
    make: async (db, o) => `/events/${await event(db, o)}`,
    missing: async () => `/events/${crypto.randomUUID()}`,
  },
};

let n = 0;
async function card(db: Db, o: TenantFixture): Promise<string> {
  const code = `matrix-${++n}-${Date.now()}`;
  await createCard(db, { tenantId: o.tenantId, via: "operator" }, { code, name: "Matrix" });
  return code;
}

/** An active subscription of the fixture's integration (written directly: no DNS in fixtures). */
async function webhook(db: Db, o: TenantFixture): Promise<string> {
  return (await insertSubscription(db, o, { url: "https://hooks.example.com/matrix" })).id;
}

/** A live event of the fixture's tenant that every integration may read (`task.created`: no read scope). */
async function event(db: Db, o: TenantFixture): Promise<string> {
  const [row] = await db
    .insert(events)
    .values({ tenantId: o.tenantId, type: "task.created", data: {} })
    .returning({ id: events.id });
  return row.id;
}

/** The route's path with every `{param}` filled with a well-formed value (a uuid, or a card code). */
export function samplePath(route: AnyRoute): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    name === "code" ? "sample-code" : "00000000-0000-4000-8000-000000000000",
  );
}
