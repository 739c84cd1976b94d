import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { sql } from "drizzle-orm";
import {
  disclosures,
  events,
  requestLog,
  usageDaily,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookSubscriptions,
} from "@/db/schema";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { sampleAttempts } from "./sample-attempts";
import { momentOf, nth, SANDBOX_DAYS, type SandboxContext } from "./sample-context";

/**
 * Where the sample subscription of the sandbox points: a host under `.example`, a name reserved never to
 * resolve (RFC 2606). The subscription is paused as well, so nothing of the sample is ever sent.
 */
export const SANDBOX_WEBHOOK_URL = "https://webhooks.example/sandbox";

/** The caller address of the sample requests: a documentation address (RFC 5737 TEST-NET-3). */
const SAMPLE_CALLER = "203.0.113.10";

/** Inserts rows in chunks of 500 (far below the parameter limit of one statement). */
async function insertChunked<T>(tx: Db, table: Parameters<Db["insert"]>[0], rows: T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await tx.insert(table).values(rows.slice(i, i + 500) as never);
}

/**
 * Seeds the sandbox's traffic inside the caller's transaction: for each sample integration a paused
 * subscription to {@link SANDBOX_WEBHOOK_URL} (events `conversation.*`, `message.created`, `lead.*`);
 * 30 days of events of the sample records (about three a day) and their deliveries to each sample
 * subscription, most `delivered` at the first attempt, some at the second, some `dead` after the last
 * attempt and a few `failed` (no next attempt is scheduled, so no worker ever takes them), each with its
 * attempt log (./sample-attempts.ts); and 30 days
 * of each integration's API requests (its test key, the tour's read routes, some refusals) with the
 * disclosure-journal rows of those that answered personal data.
 */
export async function seedSandboxTraffic(tx: Db, ctx: SandboxContext): Promise<void> {
  const subscriptionIds = await seedSubscriptions(tx, ctx);
  await seedEventsAndDeliveries(tx, ctx, subscriptionIds);
  await seedRequests(tx, ctx);
}

/** One paused sample subscription per sample integration. @returns their ids */
async function seedSubscriptions(tx: Db, ctx: SandboxContext): Promise<string[]> {
  if (!ctx.integrations.length) return [];
  const created = momentOf(ctx, SANDBOX_DAYS - 1, 0.05);
  const rows = await tx
    .insert(webhookSubscriptions)
    .values(
      ctx.integrations.map((i) => ({
        ...ctx.owner,
        integrationId: i.id,
        url: SANDBOX_WEBHOOK_URL,
        events: ["conversation.*", "message.created", "lead.*"],
        description: "Sample subscription of the sandbox (paused: nothing is sent)",
        status: "paused",
        // A real sealed secret, so rotating it or resuming the subscription works as for any other.
        secretEnc: sealSecret(newSigningSecret()),
        createdAt: created,
        updatedAt: created,
      })),
    )
    .returning({ id: webhookSubscriptions.id });
  return rows.map((r) => r.id);
}

/** The `i`-th sample event: its type and thin data (spec "Events: Event types"), of the seeded records. */
function sampleEvent(ctx: SandboxContext, i: number): { type: string; data: Record<string, unknown> } {
  const s = ctx.samples;
  const lead = nth(s.leads, i, null);
  const message = nth(s.customerMessages, i, null);
  switch (lead && message ? i % 4 : 0) {
    case 1:
      return {
        type: "message.created",
        data: {
          conversation_id: message!.conversationId,
          message_id: message!.id,
          sender: "customer",
          ai_reply: { status: "queued" },
        },
      };
    case 2:
      return {
        type: "lead.created",
        data: {
          lead_id: lead!.id,
          contact_id: lead!.contactId,
          conversation_id: lead!.conversationId,
          version: 1,
        },
      };
    case 3:
      return { type: "lead.status_changed", data: { lead_id: lead!.id, version: lead!.version } };
    default:
      return { type: "conversation.created", data: { conversation_id: nth(s.conversationIds, i, randomUUID()) } };
  }
}

/** 30 days of events and one delivery of each to every sample subscription, with the deliveries' attempts. */
async function seedEventsAndDeliveries(tx: Db, ctx: SandboxContext, subscriptionIds: string[]): Promise<void> {
  const eventRows: (typeof events.$inferInsert)[] = [];
  const deliveryRows: (typeof webhookDeliveries.$inferInsert & { id: string; createdAt: Date })[] = [];
  let i = 0;
  for (let daysAgo = SANDBOX_DAYS - 1; daysAgo >= 0; daysAgo--) {
    const perDay = 2 + ((daysAgo * 7) % 3);
    for (let j = 0; j < perDay; j++, i++) {
      const { type, data } = sampleEvent(ctx, i);
      const createdAt = momentOf(ctx, daysAgo, (j + 0.5) / perDay);
      const id = randomUUID();
      eventRows.push({ id, ...ctx.owner, type, data, createdAt });
      subscriptionIds.forEach((subscriptionId, k) => {
        const n = i + k;
        const at = (ms: number) => new Date(createdAt.getTime() + ms);
        const base = {
          ...ctx.owner,
          id: randomUUID(),
          subscriptionId,
          eventId: id,
          eventType: type,
          createdAt: at(40),
        };
        const duration = 40 + ctx.r.int(400);
        if (n % 10 === 7)
          deliveryRows.push({
            ...base,
            state: "dead",
            attempt: 9,
            statusCode: 500,
            durationMs: duration,
            error: "http_500",
            nextAttemptAt: null,
          });
        else if (n % 17 === 11)
          deliveryRows.push({
            ...base,
            state: "failed",
            attempt: 1,
            statusCode: 503,
            durationMs: duration,
            error: "http_503",
            nextAttemptAt: null,
          });
        else
          deliveryRows.push({
            ...base,
            state: "delivered",
            attempt: n % 10 === 3 ? 2 : 1,
            statusCode: 200,
            durationMs: duration,
            nextAttemptAt: null,
            deliveredAt: at(n % 10 === 3 ? 61_000 : 1_000),
          });
      });
    }
  }
  await insertChunked(tx, events, eventRows);
  await insertChunked(tx, webhookDeliveries, deliveryRows);
  await insertChunked(tx, webhookDeliveryAttempts, deliveryRows.flatMap(sampleAttempts));
}

/**
 * Routes of the sample requests: method, path template, what a 200 discloses (the disclosure journal's
 * resource type, null for none) and the sample records a path's `{id}` takes.
 */
const SAMPLE_ROUTES: { method: string; path: string; discloses: string | null; ids?: "conversation" | "lead" }[] = [
  { method: "GET", path: "/me", discloses: null },
  { method: "GET", path: "/wallet", discloses: null },
  { method: "GET", path: "/cards", discloses: null },
  { method: "GET", path: "/conversations", discloses: "conversation" },
  { method: "GET", path: "/conversations/{id}", discloses: "conversation", ids: "conversation" },
  { method: "GET", path: "/conversations/{id}/messages", discloses: "message", ids: "conversation" },
  { method: "GET", path: "/leads", discloses: "lead" },
  { method: "GET", path: "/leads/{id}", discloses: "lead", ids: "lead" },
  { method: "GET", path: "/articles", discloses: null },
  { method: "GET", path: "/strategist/reports", discloses: null },
  { method: "GET", path: "/dashboards/overview", discloses: null },
  { method: "GET", path: "/webhooks", discloses: null },
];

/** The ids a sample request of `route` answered (the record `id` of its path, or a list's first page). */
function disclosedIds(ctx: SandboxContext, route: (typeof SAMPLE_ROUTES)[number], id: string): string[] {
  const s = ctx.samples;
  if (route.discloses === "message")
    return s.customerMessages
      .filter((m) => m.conversationId === id)
      .slice(0, 5)
      .map((m) => m.id);
  if (route.ids) return [id];
  return route.discloses === "lead" ? s.leads.slice(0, 5).map((l) => l.id) : s.conversationIds.slice(0, 5);
}

/** The refusals among the sample requests: every n-th request answers this status and catalog code. */
const SAMPLE_REFUSALS: { every: number; status: number; code: string }[] = [
  { every: 29, status: 429, code: "rate_limited" },
  { every: 17, status: 422, code: "validation_failed" },
  { every: 13, status: 404, code: "not_found" },
];

/** 30 days of each sample integration's requests, and the disclosure rows of those that disclosed. */
async function seedRequests(tx: Db, ctx: SandboxContext): Promise<void> {
  const logRows: (typeof requestLog.$inferInsert)[] = [];
  const journalRows: (typeof disclosures.$inferInsert)[] = [];
  const { r, samples } = ctx;
  let n = 0;
  for (const integration of ctx.integrations) {
    for (let daysAgo = SANDBOX_DAYS - 1; daysAgo >= 0; daysAgo--) {
      const perDay = 6 + r.int(10);
      for (let j = 0; j < perDay; j++, n++) {
        const route = SAMPLE_ROUTES[n % SAMPLE_ROUTES.length];
        // A 404 needs an id in the path (an unknown one); the other refusals may answer any route.
        const refusal = SAMPLE_REFUSALS.find((x) => n % x.every === x.every - 1 && (x.status !== 404 || route.ids));
        const id =
          route.ids === "lead"
            ? nth(
                samples.leads.map((l) => l.id),
                n,
                randomUUID(),
              )
            : nth(samples.conversationIds, n, randomUUID());
        const path = route.path.replace("{id}", refusal?.status === 404 ? randomUUID() : id);
        const status = refusal?.status ?? 200;
        const requestId = `req_${randomUUID().replace(/-/g, "")}`;
        const createdAt = momentOf(ctx, daysAgo, (j + r.next()) / perDay);
        logRows.push({
          ...ctx.owner,
          createdAt,
          integrationId: integration.id,
          apiKeyId: integration.testKey?.id ?? null,
          keyId: integration.testKey?.keyId ?? null,
          method: route.method,
          path,
          status,
          problemCode: refusal?.code ?? null,
          latencyMs: Math.round((3 + r.next() * 60) * 10) / 10,
          requestId,
          callerAddress: SAMPLE_CALLER,
        });
        const disclosed = route.discloses && status === 200 ? disclosedIds(ctx, route, id) : [];
        if (disclosed.length)
          journalRows.push({
            ...ctx.owner,
            integrationId: integration.id,
            apiKeyId: integration.testKey?.id ?? null,
            route: `${route.method} ${route.path}`,
            resourceType: route.discloses!,
            resourceIds: disclosed,
            requestId,
            createdAt,
          });
      }
    }
  }
  await insertChunked(tx, requestLog, logRows);
  await insertChunked(tx, disclosures, journalRows);
  await countUsage(tx, logRows);
}

/**
 * Adds the sample requests to `usage_daily`, as the request-log writer adds the rows it writes (the usage
 * charts read these counts, not the log): by UTC day, integration and status class.
 */
async function countUsage(tx: Db, rows: (typeof requestLog.$inferInsert)[]): Promise<void> {
  const counts = new Map<string, typeof usageDaily.$inferInsert>();
  for (const r of rows) {
    if (!r.tenantId || !r.integrationId) continue;
    const day = (r.createdAt ?? new Date()).toISOString().slice(0, 10);
    const statusClass = Math.floor(r.status / 100);
    const key = `${day}|${r.integrationId}|${statusClass}`;
    const c = counts.get(key);
    if (c) c.requests = (c.requests ?? 0) + 1;
    else
      counts.set(key, {
        tenantId: r.tenantId,
        livemode: r.livemode ?? true,
        day,
        integrationId: r.integrationId,
        statusClass,
        requests: 1,
      });
  }
  const values = [...counts.values()];
  for (let i = 0; i < values.length; i += 500)
    await tx
      .insert(usageDaily)
      .values(values.slice(i, i + 500))
      .onConflictDoUpdate({
        target: [
          usageDaily.tenantId,
          usageDaily.livemode,
          usageDaily.day,
          usageDaily.integrationId,
          usageDaily.statusClass,
        ],
        set: { requests: sql`${usageDaily.requests} + excluded.requests` },
      });
}
