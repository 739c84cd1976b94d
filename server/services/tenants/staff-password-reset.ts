import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { staffUsers, staffVerifications } from "@/db/schema";
import { env } from "@/server/env";
import { invalidField, notFound } from "@/server/errors";
import { sendMail } from "../mail/mailer";
import { normalizeStaffEmail } from "./staff";

// Password reset of console accounts (issue 76 item 2) is better-auth's own: `POST /api/auth/
// request-password-reset` makes a one-time token and calls `sendResetPassword` (server/auth/auth.ts), which
// mails {@link passwordResetUrl}; the reset page posts the token and the new password to
// `/api/auth/reset-password`, which consumes the token and ends every session of the account. This module
// holds what the operator CLI shares with that flow: the link, the mail, the token's lifetime and how its
// row is stored, so a link minted by `npm run admin -- staff:reset-password` is one better-auth accepts.

/** How long a password reset link works, seconds (1 hour); better-auth's `resetPasswordTokenExpiresIn`. */
export const PASSWORD_RESET_TTL_S = 3600;

/**
 * How better-auth stores the identifier of its one-time tokens (`verification.storeIdentifier`), here
 * `reset-password:<token>`: SHA-256, hex. So the `staff_verifications` table holds no usable token.
 */
export async function hashVerificationIdentifier(identifier: string): Promise<string> {
  return createHash("sha256").update(identifier).digest("hex");
}

/** The console page that sets a new password with a reset token: `<origin>/console/reset-password/<token>`. */
export function passwordResetUrl(token: string): string {
  const e = env();
  return `${e.cellOrigins[e.cell]}/console/reset-password/${encodeURIComponent(token)}`;
}

/**
 * Mails a reset link to the account's own address (when mail is configured; otherwise nothing is sent
 * and the person asks an operator). The link is a secret: it is never logged.
 * @returns whether the mail server took it.
 */
export function mailPasswordReset(input: { email: string; token: string }): Promise<boolean> {
  return sendMail({
    to: input.email,
    subject: "Set a new password for the platform console",
    text:
      `Someone asked to set a new password for the console account ${input.email}.\n\n` +
      `Set it within an hour: ${passwordResetUrl(input.token)}\n\n` +
      "Setting it signs the account out everywhere. If you did not ask, ignore this message: the password stays.",
  });
}

/**
 * Operator only (`npm run admin -- staff:reset-password --email E`): a one-time link that sets a new
 * password for the account of `email`, for an operator to hand over after checking who asks (a person
 * locked out, a server without mail). It is the same token better-auth's own reset mails, with the same
 * lifetime: using it sets the password and ends every session of the account.
 * @returns the normalized email, the link and when it stops working.
 * @throws ApiError `validation_failed` (empty email), `not_found` (no console account has this email).
 */
export async function createPasswordResetLink(
  db: Db,
  input: { email: string },
): Promise<{ email: string; resetUrl: string; expiresAt: Date }> {
  const email = normalizeStaffEmail(input.email);
  if (!email) throw invalidField("/email", "required", "Enter the account's email address.");
  const [user] = await db.select({ id: staffUsers.id }).from(staffUsers).where(eq(staffUsers.email, email));
  if (!user) throw notFound("Staff account");
  // 24 random bytes, as unguessable as the library's own 24-character tokens and URL-safe.
  const token = randomBytes(24).toString("base64url");
  const expiresAt = new Date(Date.now() + PASSWORD_RESET_TTL_S * 1000);
  await db.insert(staffVerifications).values({
    id: crypto.randomUUID(),
    identifier: await hashVerificationIdentifier(`reset-password:${token}`),
    value: user.id,
    expiresAt,
  });
  return { email, resetUrl: passwordResetUrl(token), expiresAt };
}
