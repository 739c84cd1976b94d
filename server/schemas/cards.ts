import { z } from "zod";
import { Timestamp } from "./common";

/** Card code: lowercase latin letters, digits, `_`, `-`; 1 to 40 chars (spec "Card"). */
export const CardCode = z
  .string()
  .min(1, "must not be empty")
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z0-9_-]+$/, "may hold only lowercase latin letters, digits, _ and -");

/**
 * A page address or button URL as sent: `https://` or a site path starting with `/`; `javascript:`,
 * `data:`, `http:` and every other scheme are refused. Whether a path may be expanded is the service's check.
 */
export const SiteAddress = z
  .string()
  .max(2048, "must be at most 2048 characters")
  .refine((v) => isHttpsUrl(v) || isSitePath(v), {
    message: "must be an https:// address or a path of your site starting with /",
    params: { code: "invalid_url" },
  });

/** An image address: `https://` or a file path in the account's storage (`/storage/<tenant id>/...`). */
export const ImageAddress = z
  .string()
  .max(2048, "must be at most 2048 characters")
  .refine((v) => isHttpsUrl(v) || /^\/storage\/[0-9a-f-]{36}\/[^?#]+$/i.test(v), {
    message: "must be an https:// address or a path of a file in your storage (/storage/<tenant id>/...)",
    params: { code: "invalid_url" },
  });

export function isHttpsUrl(v: string): boolean {
  if (!/^https:\/\//i.test(v)) return false;
  try {
    const u = new URL(v);
    return u.protocol === "https:" && u.hostname.length > 0 && !u.username && !u.password;
  } catch {
    return false;
  }
}

export function isSitePath(v: string): boolean {
  // "//host" would be a scheme-relative address to another site; "/\" is read as "//" by browsers.
  return v.startsWith("/") && !v.startsWith("//") && !v.startsWith("/\\") && !/[\s\u0000-\u001f]/.test(v);
}

export const CardButtonSchema = z.strictObject({
  label: z.string().min(1, "must not be empty").max(64, "must be at most 64 characters"),
  url: SiteAddress,
});

const cardFields = {
  code: CardCode,
  name: z.string().trim().min(1, "must not be empty").max(120, "must be at most 120 characters"),
  description: z.string().max(500, "must be at most 500 characters").nullable(),
  image_url: ImageAddress.nullable(),
  page_url: SiteAddress.nullable(),
  badge: z.string().max(30, "must be at most 30 characters").nullable(),
  price_text: z.string().max(40, "must be at most 40 characters").nullable(),
  buttons: z.array(CardButtonSchema).max(3, "at most 3 buttons"),
  ai_enabled: z.boolean(),
  sort: z.number().int("must be an integer").min(-2147483648).max(2147483647),
  active: z.boolean(),
};

/** Body of `POST /cards`: `code` and `name` required, the rest optional. */
export const CardCreateSchema = z.strictObject({
  code: cardFields.code,
  name: cardFields.name,
  description: cardFields.description.optional(),
  image_url: cardFields.image_url.optional(),
  page_url: cardFields.page_url.optional(),
  badge: cardFields.badge.optional(),
  price_text: cardFields.price_text.optional(),
  buttons: cardFields.buttons.optional(),
  ai_enabled: cardFields.ai_enabled.optional(),
  sort: cardFields.sort.optional(),
  active: cardFields.active.optional(),
});
export type CardCreate = z.infer<typeof CardCreateSchema>;

/** Body of `PATCH /cards/{code}`: any card field, at least one. */
export const CardUpdateSchema = CardCreateSchema.partial().refine((b) => Object.keys(b).length > 0, {
  message: "send at least one field to change",
  params: { code: "required" },
});
export type CardUpdate = z.infer<typeof CardUpdateSchema>;

/** A card as answered (spec "Card"); site paths are expanded against the tenant's main domain. */
export const CardSchema = z.object({
  id: z.string(),
  code: CardCode,
  name: z.string(),
  description: z.string().nullable(),
  image_url: z.string().nullable(),
  price_text: z.string().nullable(),
  badge: z.string().nullable(),
  page_url: z.string().nullable(),
  buttons: z.array(z.object({ label: z.string(), url: z.string() })),
  ai_enabled: z.boolean(),
  sort: z.number().int(),
  active: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Card = z.infer<typeof CardSchema>;
