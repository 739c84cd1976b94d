import type { Db } from "@/db/client";
import { createCard } from "@/server/services/cards/cards";
import type { AnyRoute } from "@/server/public-api/define-route";
import type { TenantFixture } from "./fixtures";

/**
 * For every route whose path takes an id: how to make a real resource of the owner tenant (returns
 * the concrete path), a path of a resource that does not exist, and the body to send (writes).
 * The route matrix fails for an id route missing here, so a new route cannot skip the isolation test.
 */
export const ID_ROUTE_FIXTURES: Record<string, { make(db: Db, owner: TenantFixture): Promise<string>; missing(): Promise<string>; body?: unknown }> = {
  getCard: { make: async (db, o) => `/cards/${await card(db, o)}`, missing: async () => "/cards/never-existed" },
  updateCard: { make: async (db, o) => `/cards/${await card(db, o)}`, missing: async () => "/cards/never-existed", body: { name: "Changed" } },
  deleteCard: { make: async (db, o) => `/cards/${await card(db, o)}`, missing: async () => "/cards/never-existed" },
};

let n = 0;
async function card(db: Db, o: TenantFixture): Promise<string> {
  const code = `matrix-${++n}-${Date.now()}`;
  await createCard(db, { tenantId: o.tenantId, via: "operator" }, { code, name: "Matrix" });
  return code;
}

/** The route's path with every `{param}` filled with a well-formed value (a uuid, or a card code). */
export function samplePath(route: AnyRoute): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "code" ? "sample-code" : "00000000-0000-4000-8000-000000000000"));
}
