import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "@/server/env";
import { nowMs } from "@/server/lib/clock";

/** Lifetime of an attachment link, ms: long enough to download, short enough that a leaked link dies. */
export const ATTACHMENT_LINK_TTL_MS = 15 * 60 * 1000;

function mac(attachmentId: string, expiresSec: number): Buffer {
  return createHmac("sha256", `attachment:${env().appSecret}`).update(`${attachmentId}.${expiresSec}`).digest();
}

/**
 * A temporary signed link to an attachment, served by the app at `/files/attachments/{id}` (spec
 * "Message": attachments are temporary signed links; messenger file addresses never leave).
 * Expiry is rounded up to the next minute so that repeated reads within a minute give the same link.
 * @returns `url` on this cell's origin and `expires_at` (ISO 8601 UTC).
 */
export function signAttachmentLink(attachmentId: string, now = nowMs()): { url: string; expires_at: string } {
  const expiresSec = Math.ceil((now + ATTACHMENT_LINK_TTL_MS) / 60_000) * 60;
  const e = env();
  const signature = mac(attachmentId, expiresSec).toString("base64url");
  return {
    url: `${e.cellOrigins[e.cell]}/files/attachments/${attachmentId}?expires=${expiresSec}&signature=${signature}`,
    expires_at: new Date(expiresSec * 1000).toISOString(),
  };
}

/** Whether a presented link is genuine and not expired (constant-time comparison). */
export function verifyAttachmentLink(
  attachmentId: string,
  expires: string | null,
  signature: string | null,
  now = nowMs(),
): boolean {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
  const expiresSec = Number(expires);
  if (expiresSec * 1000 <= now) return false;
  // Compared as the exact text issued: base64 decoding would accept some altered spellings of it.
  const expected = Buffer.from(mac(attachmentId, expiresSec).toString("base64url"));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
