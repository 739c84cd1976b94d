import { z } from "zod";
import { CardCode, CardSchema } from "./cards";
import { Timestamp } from "./common";

/** Conversation (spec "Resources: Conversation"). Personal-mailbox and student-cabinet ones never appear. */
export const ConversationSchema = z
  .object({
    id: z.uuid(),
    channel: z.string().nullable().meta({ description: "channel type: api, telegram, website, ... (open set)" }),
    contact_id: z.string().nullable(),
    external_customer_id: z
      .string()
      .nullable()
      .meta({ description: "customer id in the tenant's system; only for channel `api`, else null" }),
    status: z.string().meta({ description: "open, handoff_pending, resolved, closed; the set may grow" }),
    mode: z.enum(["ai", "operator"]),
    language: z.string().nullable(),
    created_at: Timestamp.nullable(),
    updated_at: Timestamp,
  })
  .meta({ id: "Conversation" });
export type Conversation = z.infer<typeof ConversationSchema>;

/**
 * A message attachment: a temporary link signed by the platform and served by the app (never a
 * messenger's own file address). `url` stops working at `expires_at`; read the message again for a new one.
 */
export const AttachmentSchema = z
  .object({
    id: z.uuid(),
    file_name: z.string(),
    content_type: z.string().meta({ description: "MIME type" }),
    size_bytes: z.number().int().meta({ description: "size in bytes" }),
    url: z.string().meta({ description: "temporary signed link" }),
    expires_at: Timestamp,
  })
  .meta({ id: "MessageAttachment" });
export type Attachment = z.infer<typeof AttachmentSchema>;

/** Message (spec "Resources: Message"). A tombstone has `deleted: true`, `content: null`, no attachments. */
export const MessageSchema = z
  .object({
    id: z.uuid(),
    conversation_id: z.uuid(),
    sender: z.string().meta({ description: "customer, ai, operator, system" }),
    content_type: z.string().meta({ description: "text, image, file, cards; more may appear" }),
    content: z.string().nullable().meta({ description: "null = attachment only, or message deleted" }),
    attachments: z.array(AttachmentSchema).meta({ description: "at most one currently" }),
    deleted: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: "Message" });
export type Message = z.infer<typeof MessageSchema>;

/** Body of `POST /conversations/{id}/cards` (spec: 1 to 3 codes, comment up to 1000 chars). */
export const SendCardsSchema = z
  .strictObject({
    codes: z.array(CardCode).min(1, "must hold 1 to 3 card codes").max(3, "must hold 1 to 3 card codes"),
    comment: z.string().max(1000, "must be at most 1000 characters").nullable().optional(),
  })
  .meta({ id: "SendCards" });
export type SendCards = z.infer<typeof SendCardsSchema>;

/**
 * A card as copied into the message at send time, addresses expanded (spec "MessageCard"): the Card's
 * display fields, without its id, settings and timestamps.
 */
export const MessageCardSchema = CardSchema.pick({
  code: true,
  name: true,
  description: true,
  image_url: true,
  price_text: true,
  badge: true,
  page_url: true,
  buttons: true,
}).meta({ id: "MessageCard" });

/** 201 answer of `POST /conversations/{id}/cards`. */
export const SentCardsSchema = z
  .object({
    message_id: z.uuid(),
    conversation_id: z.uuid(),
    created_at: Timestamp,
    cards: z.array(MessageCardSchema),
    delivery: z.enum(["metadata", "native", "text"]).meta({
      description:
        "metadata: site widget and integration channel (event message.created); native: Telegram, VK, Max; text: lines of name, price, link",
    }),
    status: z.enum(["sent", "delivered", "failed"]),
  })
  .meta({ id: "SentCards" });
export type SentCards = z.infer<typeof SentCardsSchema>;
