import { createTransport, type Transporter } from "nodemailer";
import { env } from "@/server/env";
import { log } from "@/server/log";

/** One outgoing message: plain text, optionally HTML. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Something that delivers mail; {@link setMailer} swaps it (tests). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

let override: Mailer | undefined;
let smtp: { url: string; transport: Transporter } | undefined;

/** Replaces the mailer (tests capture messages); `undefined` returns to the configured one. */
export function setMailer(m: Mailer | undefined): void {
  override = m;
}

/**
 * The configured mailer: nodemailer over `SMTP_URL` (one pooled transport per URL), or null when
 * `SMTP_URL` is unset and no override is installed; callers then show the link instead of mailing it.
 */
export function mailer(): Mailer | null {
  if (override) return override;
  const { smtpUrl, mailFrom } = env();
  if (!smtpUrl) return null;
  if (smtp?.url !== smtpUrl) smtp = { url: smtpUrl, transport: createTransport(smtpUrl) };
  const transport = smtp.transport;
  return {
    async send(m) {
      await transport.sendMail({ from: mailFrom, to: m.to, subject: m.subject, text: m.text, html: m.html });
    },
  };
}

/**
 * Sends a message if mail is configured. A failure is logged (never the message body: it may carry a
 * link that is a secret) and reported as `false`, so the caller's own work is not undone by a mail server.
 * @returns whether the message was handed to the mail server; false when mail is off or failed.
 */
export async function sendMail(message: MailMessage): Promise<boolean> {
  const m = mailer();
  if (!m) return false;
  try {
    await m.send(message);
    return true;
  } catch (err) {
    log().warn({ err: (err as Error).message, subject: message.subject }, "mail not sent");
    return false;
  }
}
