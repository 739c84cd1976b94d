import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** A message the catcher received: envelope, subject and the decoded text body. */
export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

/** A running catcher: the `SMTP_URL` that reaches it, what it received, and how to wait for more. */
export interface SmtpCatcher {
  /** `smtp://127.0.0.1:<port>/?ignoreTLS=true`, for `SMTP_URL`. */
  url: string;
  messages: CaughtMail[];
  /** The first message (received or still to come) to `to`, after `skip` earlier ones to that address. */
  waitFor(to: string, opts?: { skip?: number; timeoutMs?: number }): Promise<CaughtMail>;
  /** Messages received so far for `to`. */
  to(to: string): CaughtMail[];
  close(): Promise<void>;
}

/** Decodes a single-part body by its Content-Transfer-Encoding (what nodemailer sends for plain text). */
function decodeBody(encoding: string, body: string): string {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable")
    return Buffer.from(
      body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      "latin1",
    ).toString("utf8");
  return body;
}

/**
 * Tests only: a real SMTP server on 127.0.0.1 (the `smtp-server` package, no TLS, no authentication)
 * that keeps every message it is sent, so a test drives the app's mail over `SMTP_URL` end to end.
 */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const messages: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const split = raw.indexOf("\r\n\r\n");
        const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
        const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: header("Subject"),
          text: decodeBody(header("Content-Transfer-Encoding").toLowerCase(), raw.slice(split + 4)),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  const forAddress = (to: string) => messages.filter((m) => m.to.includes(to));
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    messages,
    to: forAddress,
    async waitFor(to, { skip = 0, timeoutMs = 5000 } = {}) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = forAddress(to)[skip];
        if (found) return found;
        if (Date.now() > until) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
