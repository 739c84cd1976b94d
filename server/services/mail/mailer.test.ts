import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setTestEnv } from "@/server/testing/test-db";
import { sendMail } from "./mailer";

// With SMTP_URL set, a message goes out over SMTP (nodemailer) to that server: a minimal SMTP receiver
// on loopback records what it was sent.

let server: Server;
let port = 0;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    let data = false;
    let body = "";
    socket.write("220 test ESMTP\r\n");
    socket.on("data", (chunk) => {
      for (const line of chunk.toString("utf8").split("\r\n")) {
        if (data) {
          if (line === ".") {
            data = false;
            received.push(body);
            socket.write("250 OK queued\r\n");
          } else body += `${line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (!line) continue;
        if (cmd === "EHLO" || cmd === "HELO") socket.write("250 test\r\n");
        else if (cmd === "DATA") {
          data = true;
          socket.write("354 go ahead\r\n");
        } else if (cmd === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 OK\r\n");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  setTestEnv();
  await new Promise((r) => server.close(r));
});

it("sends through the SMTP server of SMTP_URL, from MAIL_FROM", async () => {
  setTestEnv({ SMTP_URL: `smtp://127.0.0.1:${port}/?ignoreTLS=true`, MAIL_FROM: "Console <team@shop.example>" });
  const ok = await sendMail({
    to: "new@shop.example",
    subject: "Join Test shop",
    text: "https://x/console/invitations/1",
  });
  expect(ok).toBe(true);
  expect(received).toHaveLength(1);
  expect(received[0]).toContain("To: new@shop.example");
  expect(received[0]).toContain("From: Console <team@shop.example>");
  expect(received[0]).toContain("Subject: Join Test shop");
  expect(received[0]).toContain("https://x/console/invitations/1");
});

it("reports false, and throws nothing, when the mail server cannot be reached", async () => {
  setTestEnv({ SMTP_URL: "smtp://127.0.0.1:1/?ignoreTLS=true&connectionTimeout=2000" });
  expect(await sendMail({ to: "new@shop.example", subject: "s", text: "t" })).toBe(false);
});
