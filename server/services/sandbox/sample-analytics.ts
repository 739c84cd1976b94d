import { and, eq } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { intakeEventIds, intakeEvents } from "@/db/schema";
import { addRolledUpRows, ROLLED_UP_XID } from "../analytics/rollup";
import { ensurePartitions } from "../intake/partitions";
import { DAY_MS, type SandboxContext } from "./sample-context";

/** Days back the sample events occurred: intake's late window (issue 74 item 1: from 7 days ago). */
const SAMPLE_DAYS = 7;

/** Traffic sources of the sample (spec TrafficSourceRow `source` and `kind`), most frequent first. */
const SAMPLE_SOURCES: [string, string][] = [
  ["google", "search"],
  ["yandex", "search"],
  ["direct", "direct"],
  ["chatgpt", "ai_assistant"],
  ["social", "social"],
  ["perplexity", "ai_assistant"],
];

/** Pages of the sample site, with their titles. */
const SAMPLE_PAGES: [string, string][] = [
  ["/", "Trail running shop"],
  ["/catalog/trail", "Trail shoes"],
  ["/blog/choosing-trail-shoes", "Choosing trail shoes for winter"],
  ["/delivery", "Delivery and returns"],
];

/**
 * Seeds the sandbox's event intake inside the caller's transaction (issue 74; test mode): a week of sample
 * events as `POST /intake/events` would have accepted them, received at seeding time (so they sit in today's
 * partition: a partition a past day would cost the seeding a table each) and occurred over the last
 * {@link SAMPLE_DAYS} days: page views from search, AI assistants, social and direct visits (sessions and
 * visitors), form submissions that created leads, and purchases with their value. Their event ids are
 * remembered for duplicates, and they are added to the rollups at once (written with the rollup job's
 * {@link ROLLED_UP_XID}, so the job never adds them again): the sandbox's analytics and dashboard have data
 * from the first test request on.
 */
export async function seedSandboxAnalytics(tx: Db, ctx: SandboxContext): Promise<void> {
  const { r, now, owner } = ctx;
  const receivedAt = new Date(now);
  const rows: (typeof intakeEvents.$inferInsert)[] = [];
  const base = { ...owner, receivedAt, status: "accepted", xid: ROLLED_UP_XID };
  for (let daysAgo = SAMPLE_DAYS - 1; daysAgo >= 0; daysAgo--) {
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS - daysAgo * DAY_MS;
    const span = daysAgo === 0 ? Math.max(1, now - dayStart) : DAY_MS;
    const at = () => new Date(dayStart + Math.floor(r.next() * span));
    const visits = 4 + r.int(5);
    for (let v = 0; v < visits; v++) {
      const [source, kind] = SAMPLE_SOURCES[Math.min(r.int(8), SAMPLE_SOURCES.length - 1)]!;
      const visitorKey = `sample-visitor-${r.int(12)}`;
      const views = 1 + r.int(3);
      for (let i = 0; i < views; i++) {
        const [pagePath, pageTitle] = SAMPLE_PAGES[r.int(SAMPLE_PAGES.length)]!;
        rows.push({
          ...base,
          eventId: `sample-${randomUUID()}`,
          type: "page_view",
          occurredAt: at(),
          source,
          kind,
          sessionStart: i === 0,
          visitorKey,
          pageUrl: `https://shop.example${pagePath}`,
          pagePath,
          pageTitle,
        });
      }
      if (r.next() < 0.25)
        rows.push({
          ...base,
          eventId: `sample-${randomUUID()}`,
          type: "form_submit",
          occurredAt: at(),
          source,
          kind,
          visitorKey,
          leadEffect: "lead_created",
        });
      if (r.next() < 0.12)
        rows.push({
          ...base,
          eventId: `sample-${randomUUID()}`,
          type: "purchase",
          occurredAt: at(),
          source,
          kind,
          visitorKey,
          valueMinor: BigInt(150_000 + r.int(20) * 10_000),
          currency: "RUB",
          orderId: `sample-order-${r.int(1e6)}`,
        });
    }
  }
  await ensurePartitions(tx, [now]);
  for (let i = 0; i < rows.length; i += 500) await tx.insert(intakeEvents).values(rows.slice(i, i + 500));
  await tx
    .insert(intakeEventIds)
    .values(rows.map((x) => ({ ...owner, eventId: x.eventId!, receivedAt })))
    .onConflictDoNothing();
  await addRolledUpRows(tx, and(eq(intakeEvents.tenantId, owner.tenantId), eq(intakeEvents.livemode, false))!);
}
