import { z } from "zod";
import { MoneySchema, Timestamp } from "./common";

/** Statuses of an asynchronous operation (spec "Operation"). */
export const OPERATION_STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;

/** Usage of a paid operation (spec "Usage"): its cost and the model that performed it. */
export const UsageSchema = z.object({ cost: MoneySchema, model: z.string() });

/**
 * Operation (spec "Operation"): `completed_at` only once finished (succeeded, failed, canceled), `resource`
 * only when the result names one, `error` only for failed, `usage` only for paid operations. Absent keys are
 * omitted, never null.
 */
export const OperationSchema = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(OPERATION_STATUSES),
  created_at: Timestamp,
  completed_at: Timestamp.optional(),
  resource: z.object({ type: z.string(), id: z.string() }).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  usage: UsageSchema.optional(),
});
export type Operation = z.infer<typeof OperationSchema>;

/** Envelope `{operation}` of `GET /operations/{id}` and of 202 answers. */
export const OperationEnvelopeSchema = z.object({ operation: OperationSchema });
