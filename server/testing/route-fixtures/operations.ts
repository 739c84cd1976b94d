import type { Db } from "@/db/client";
import { operations } from "@/db/schema";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";

/** A running operation of the owner's integration. */
async function operation(db: Db, o: TenantFixture): Promise<string> {
  const [r] = await db
    .insert(operations)
    .values({ tenantId: o.tenantId, integrationId: o.integrationId, type: "article.generation", status: "running" })
    .returning({ id: operations.id });
  return r.id;
}

/** Isolation fixtures of the operation routes (see ID_ROUTE_FIXTURES). */
export const OPERATION_FIXTURES: Record<string, IdRouteFixture> = {
  getOperation: {
    make: async (db, o) => `/operations/${await operation(db, o)}`,
    missing: async () => `/operations/${crypto.randomUUID()}`,
  },
};
