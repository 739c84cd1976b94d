import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { operations } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { Operation } from "@/server/schemas/operations";
import type { IntegrationActor } from "../actor";
import { operationLivemode } from "./paid-operations";

type OperationRow = typeof operations.$inferSelect;

const FINISHED = new Set(["succeeded", "failed", "canceled"]);

/**
 * Row → Operation (spec "Operation"): optional keys are omitted, not null: `completed_at` only for a finished
 * operation, `resource` only when set, `error` only for a failed one, `usage` only when recorded (paid).
 */
export function toOperation(o: OperationRow): Operation {
  const out: Operation = {
    id: o.id,
    type: o.type,
    status: o.status as Operation["status"],
    created_at: o.createdAt.toISOString(),
  };
  if (FINISHED.has(o.status) && o.completedAt) out.completed_at = o.completedAt.toISOString();
  if (o.resourceType && o.resourceId) out.resource = { type: o.resourceType, id: o.resourceId };
  if (o.status === "failed" && o.error) out.error = { code: o.error.code, message: o.error.message };
  if (o.usage)
    out.usage = { cost: { amount: o.usage.cost.amount, currency: o.usage.cost.currency }, model: o.usage.model };
  return out;
}

/**
 * `GET /operations/{id}`: an operation the caller's integration started with a key of the same kind: a
 * live key reads live operations, a test key test-mode ones (a sandbox key's are the sandbox's, issue 69;
 * see operationLivemode).
 * @throws ApiError 404 `not_found` for a missing one, or one of another integration, tenant or mode.
 */
export async function getOperation(db: Db, actor: IntegrationActor, id: string): Promise<Operation> {
  const [row] = await db
    .select()
    .from(operations)
    .where(
      and(
        eq(operations.id, id),
        eq(operations.tenantId, actor.tenantId),
        eq(operations.integrationId, actor.integrationId),
        eq(operations.livemode, operationLivemode(actor)),
      ),
    );
  if (!row) throw notFound("Operation");
  return toOperation(row);
}
