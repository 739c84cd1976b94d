/**
 * A webhook receiver on node:http: verify the signature from the raw bytes with verifyWebhook (one
 * secret, or the old and the new one while a rotation window is open), skip event ids already processed,
 * answer 2xx quickly (also to event types you do not know) and do the work afterwards.
 *
 * Run: WEBHOOK_SECRETS=whsec_new[,whsec_old] PORT=8080 npx tsx examples/webhook-receiver.ts
 * (deliveries go to an https address: put it behind your TLS terminator or tunnel.)
 */
import { createServer } from "node:http";
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "@platform/sdk";

const secrets = (process.env.WEBHOOK_SECRETS ?? "").split(",").filter(Boolean);
if (secrets.length === 0)
  throw new Error("set WEBHOOK_SECRETS to the subscription's secret (and the previous one during a rotation)");

/** Ids already handled; keep them at least 72 hours in a real store (deliveries are at least once). */
const seen = new Set<string>();

async function handle(event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case "lead.created":
      console.log(`new lead ${event.data.lead_id} (version ${event.data.version}): fetch it with client.leads.get()`);
      break;
    case "message.created":
      console.log(`message ${event.data.message_id} in ${event.data.conversation_id}`);
      break;
    case "webhook.test":
      console.log(`test event ${event.id}`);
      break;
    default:
      console.log(`${event.type}: not handled here`);
  }
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    try {
      const event = await verifyWebhook(Buffer.concat(chunks), req.headers, secrets);
      res.writeHead(204).end();
      if (seen.has(event.id)) return;
      seen.add(event.id);
      await handle(event);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.writeHead(400, { "content-type": "text/plain" }).end(err.reason);
    }
  });
}).listen(Number(process.env.PORT ?? 8080), () => console.log(`receiving on :${process.env.PORT ?? 8080}`));
