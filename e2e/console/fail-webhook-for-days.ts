import { and, desc, eq } from "drizzle-orm";
import { openForScript } from "@/db/shared-embedded";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { deliveryClient } from "@/server/webhook-transport/delivery-client";

// e2e helper (webhooks.spec.ts): one more attempt of a subscription's failed delivery, on a clock 3 days
// and a minute later than now, through the real delivery step, so a receiver that keeps failing gets the
// subscription paused for failing as after 3 real days (issue 75 item 4). Usage:
//   npx tsx e2e/console/fail-webhook-for-days.ts <subscription url>
// on the e2e run's embedded database (the running app's shared PGlite socket). Prints the outcome as JSON.

const url = process.argv[2];
if (!url) throw new Error("usage: fail-webhook-for-days.ts <subscription url>");
const db = await openForScript({ pgliteDir: process.env.PGLITE_DIR ?? ".data/e2e/pglite" });
try {
  const [sub] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.url, url));
  if (!sub) throw new Error(`no subscription to ${url}`);
  const [failed] = await db.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.subscriptionId, sub.id), eq(webhookDeliveries.state, "failed")))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(1);
  if (!failed) throw new Error(`no failed delivery of ${sub.id}`);
  const later = new Date(Date.now() + 3 * 24 * 3600_000 + 60_000);
  const outcome = await attemptDelivery(db.db, failed.id, later);
  const [after] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
  console.log(JSON.stringify({ outcome, status: after!.status, paused_reason: after!.pausedReason }));
} finally {
  await deliveryClient().close();
  await db.close();
}
