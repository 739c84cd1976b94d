import { z } from "zod";
import { OperationSchema, UsageSchema } from "./operations";
import { StrategistActionSchema } from "./strategist";

// Strategist decisions and chat (issue 73), released to tenants with the `strategist` preview. The spec
// names these routes only in passing ("Routes named only in passing"); their shapes are this issue's.

/** Longest message of a chat turn, characters (issue 73 item 2). */
export const TURN_CONTENT_MAX = 4000;

/** Body of `POST /strategist/chat/sessions/{id}/turns`: the question or instruction for the strategist. */
export const CreateTurnSchema = z
  .strictObject({
    content: z
      .string({ message: "must be a string" })
      .refine((v) => v.trim().length > 0, { message: "must hold text", params: { code: "required" } })
      .pipe(z.string().max(TURN_CONTENT_MAX, `must be at most ${TURN_CONTENT_MAX} characters`)),
  })
  .meta({ id: "StrategistTurnCreate" });
export type CreateTurn = z.infer<typeof CreateTurnSchema>;

/** Statuses of a turn: those of its operation, without `canceled`. */
export const TURN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;

/**
 * One turn of a chat session (issue 73 item 2): the user's `content`; once `succeeded`, the strategist's
 * `reply`, its `usage` and the `propose_topic` actions it proposed (confirm one to create its topic);
 * `failed` with `error` (nothing charged).
 */
export const StrategistTurnSchema = z
  .object({
    id: z.uuid(),
    session_id: z.uuid(),
    status: z.enum(TURN_STATUSES),
    content: z.string(),
    reply: z.string().nullable().meta({ description: "the strategist's answer, once succeeded" }),
    actions: z.array(StrategistActionSchema).meta({ description: "actions this turn proposed" }),
    usage: UsageSchema.nullable().meta({ description: "what the turn cost, once succeeded" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    operation_id: z.uuid(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "StrategistTurn" });
export type StrategistTurn = z.infer<typeof StrategistTurnSchema>;

/** A chat session with its turns, oldest first (`GET /strategist/chat/sessions/{id}`). */
export const StrategistSessionSchema = z
  .object({
    id: z.uuid(),
    created_at: z.string(),
    turns: z.array(StrategistTurnSchema),
  })
  .meta({ id: "StrategistSession" });
export type StrategistSession = z.infer<typeof StrategistSessionSchema>;

/**
 * Answer of `POST /strategist/chat/sessions/{id}/turns`: 202 with the turn `queued`/`running` and its
 * operation (type `strategist.turn`), or 200 with both finished when the turn finished within `wait`.
 */
export const StrategistTurnResultSchema = z
  .object({ turn: StrategistTurnSchema, operation: OperationSchema })
  .meta({ id: "StrategistTurnResult" });
export type StrategistTurnResult = z.infer<typeof StrategistTurnResultSchema>;
