import { getOperation } from "@/server/services/operations/operations";
import { UuidParam } from "@/server/schemas/common";
import { OperationEnvelopeSchema } from "@/server/schemas/operations";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

/**
 * `GET /operations/{id}`: `{operation}` of an operation this integration started. No scope of its own (reading
 * the result needs the resource's scopes), but not wallet exempt; another integration's or tenant's is 404.
 */
export const getOperationRoute = defineRoute({
  operationId: "getOperation",
  summary: "Read an asynchronous operation",
  method: "GET",
  path: "/operations/{id}",
  scope: null,
  rate: "read",
  params: UuidParam,
  responses: { 200: OperationEnvelopeSchema },
  handler: async ({ db, actor, params }) => ok({ operation: await getOperation(db, actor, params.id) }),
});

/** Routes of this domain, in the order of the spec. */
export const OPERATION_ROUTES: AnyRoute[] = [getOperationRoute];
