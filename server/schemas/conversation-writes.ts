import { z } from "zod";
import { MessageCardSchema, MessageSchema } from "./conversations";
import { waitQuery } from "./common";
import { OperationSchema } from "./operations";

// Bodies and answers of the spec's "Planned conversation write routes" (preliminary names), released to
// tenants with the `conversation-writes` preview.

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** Body of `POST /conversations`: the customer's stable id in the channel, contact fields, the page. */
export const CreateConversationSchema = z
  .strictObject({
    external_customer_id: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .meta({ description: "stable customer id in the tenant's system; a repeat returns the same conversation" }),
    name: text(200).optional(),
    email: text(320).optional(),
    phone: text(40).optional(),
    page: z
      .strictObject({
        address: text(2000).optional(),
        title: text(500).optional(),
        type: text(100).optional(),
        id: text(200).optional(),
      })
      .optional()
      .meta({ description: "where the customer is: page address, title, type and id" }),
  })
  .meta({ id: "CreateConversation" });
export type CreateConversation = z.infer<typeof CreateConversationSchema>;

/** Largest customer or operator message, characters (the widget's limit; spec leaves it open). */
export const MESSAGE_MAX = 4000;

/** Body of `POST /conversations/{id}/messages`: the customer's text. Attachments are not accepted yet. */
export const CustomerMessageSchema = z
  .strictObject({
    content: z
      .string()
      .refine((v) => v.trim().length > 0, { message: "must hold text", params: { code: "required" } })
      .pipe(text(MESSAGE_MAX)),
    attachments: z
      .array(z.unknown())
      .max(0, "attachments are not supported yet; send text only")
      .optional()
      .meta({ description: "not supported yet: only an empty array is accepted" }),
  })
  .meta({ id: "CustomerMessage" });
export type CustomerMessage = z.infer<typeof CustomerMessageSchema>;

/** Query of `POST /conversations/{id}/messages`: `wait` 0 to 20 seconds (default 0). */
export const WaitQuery = waitQuery("the AI reply");

/** Skip reasons of `ai_reply` (spec "POST /conversations/{id}/messages"). */
export const SKIP_REASONS = [
  "operator_active",
  "spam",
  "flow_reply",
  "ai_unavailable_handoff",
  "no_agent",
  "daily_limit",
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** `ai_reply`: `queued`, `replied`, or `skipped` with a `reason`. */
export const AiReplySchema = z
  .object({
    status: z.enum(["replied", "queued", "skipped"]),
    reason: z.enum(SKIP_REASONS).optional(),
  })
  .meta({ id: "AiReply" });
export type AiReply = z.infer<typeof AiReplySchema>;

/** The AI's reply: its message id, text and up to 3 recommended cards. */
export const ReplySchema = z
  .object({ id: z.uuid(), content: z.string(), cards: z.array(MessageCardSchema) })
  .meta({ id: "AiReplyMessage" });

/**
 * Answer of `POST /conversations/{id}/messages`: 202 queued with `operation`; 200 replied with `reply` and
 * the succeeded `operation`; 200 skipped without `operation` (or, for `ai_unavailable_handoff`, with the
 * failed one).
 */
export const CustomerMessageResultSchema = z
  .object({
    message: MessageSchema,
    ai_reply: AiReplySchema,
    reply: ReplySchema.optional(),
    operation: OperationSchema.optional(),
  })
  .meta({ id: "CustomerMessageResult" });
export type CustomerMessageResult = z.infer<typeof CustomerMessageResultSchema>;

/** Body of `POST /conversations/{id}/operator-messages`. */
export const OperatorMessageSchema = z
  .strictObject({
    content: z
      .string()
      .refine((v) => v.trim().length > 0, { message: "must hold text", params: { code: "required" } })
      .pipe(text(MESSAGE_MAX)),
    operator_id: text(200).optional(),
  })
  .meta({ id: "OperatorMessage" });
export type OperatorMessage = z.infer<typeof OperatorMessageSchema>;
