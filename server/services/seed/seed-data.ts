import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  articles,
  channels,
  contacts,
  conversations,
  dashboardBlocks,
  generationJobs,
  integrations,
  leads,
  messageAttachments,
  messages,
  operations,
} from "@/db/schema";
import { DASHBOARD_BLOCKS } from "@/server/schemas/dashboards";
import { storedFilePath } from "@/server/services/storage/file-store";
import { prng } from "./prng";
import { seedStrategist, type SeedOwner } from "./seed-strategist";

/** How much `seedTenantData` makes at scale N: conversations, messages and leads grow linearly. */
export interface SeedCounts {
  conversations: number;
  messages: number;
  leads: number;
  articles: number;
}

/** What {@link seedTenantData} may be told besides the scale. */
export interface SeedOptions {
  /**
   * false: every row goes to the tenant's sandbox (test mode, server/services/sandbox). Then no channel is
   * made (channels have no mode: sandbox conversations name their channel by type, the `api` ones the
   * integration's own channel), the sample files are stored under `<tenant>/sandbox/attachments/`, and no
   * operation is written (the sandbox seeds its own finished ones with their money). Default true (live).
   */
  livemode?: boolean;
  /** Start of the seeded history, ms since the epoch; default 2026-10-01. */
  start?: number;
}

const BASE = Date.UTC(2026, 9, 1); // 2026-10-01, the default start of seeded history
const MIN = 60_000;
const FIRST = ["Anna", "Ivan", "Maria", "Oleg", "Sofia", "Dmitry", "Elena", "Pavel", "Olga", "Nikita"];
const LAST = ["Petrova", "Smirnov", "Ivanova", "Kuznetsov", "Popova", "Volkov", "Sokolova", "Lebedev"];
const CITY = ["Moscow", "Kazan", "Saint Petersburg", "Novosibirsk", "Yekaterinburg"];
/** Channel types of the seeded conversations besides `api`. */
const MESSENGERS = ["website", "telegram", "vk"];
const CUSTOMER_LINES = [
  "Hello! Do you have trail shoes in size 42?",
  "How long is delivery to Kazan?",
  "Can I pay by card on delivery?",
  "Is the rain jacket waterproof?",
  "I would like to return an order.",
  "Do you have a discount for a second pair?",
];
const AI_LINES = [
  "Yes, size 42 is in stock. Shall I reserve a pair?",
  "Delivery to Kazan takes 2 to 3 days.",
  "Yes, card payment on delivery is available.",
  "It has taped seams and a 10,000 mm membrane.",
  "Of course; here is how returns work.",
  "A second pair is 15% off this week.",
];
const STATUSES = ["new", "qualified", "proposal", "negotiation", "won", "lost"] as const;
const SOURCES = ["website", "telegram", "api", "ads", "referral"];
/** Seeded attachments share a few stored sample images, so their signed links download real bytes. */
const SAMPLE_FILES = 3;
const TINY_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  "base64",
);
const AVAIL = ["ok", "ok", "ok", "no_data", "no_source", "not_connected"] as const;

/** Inserts rows in batches small enough for the parameter limit of one statement. */
async function insertBatched<T>(db: Db, table: Parameters<Db["insert"]>[0], rows: T[], columns: number): Promise<void> {
  const size = Math.max(1, Math.floor(60_000 / columns));
  for (let i = 0; i < rows.length; i += size) await db.insert(table).values(rows.slice(i, i + size) as never);
}

/**
 * Seeds realistic, deterministic data for a tenant at scale N (`npm run seed -- --tenant ID --scale N`):
 * several channels; 4·N conversations (some hidden personal-mailbox and student-cabinet ones) with
 * 100·N messages (deleted ones, internal notes, attachments); 10·N leads in every status, some archived;
 * articles with hostile HTML, an editor document, a transferred one and a shared-blog one; strategist
 * reports (one creative), topics, sessions and actions; every dashboard block; two operations (live only).
 * Every row is written with the mode of `opts.livemode` ({@link SeedOptions}), and only rows of that mode
 * are changed afterwards.
 * @param integrationId the integration that owns the strategist session and operations; default the tenant's first.
 * @throws Error when the tenant has no integration (live only: the sandbox then seeds no integration's session)
 */
export async function seedTenantData(
  db: Db,
  tenantId: string,
  scale: number,
  integrationId?: string,
  opts: SeedOptions = {},
): Promise<SeedCounts> {
  const owner: SeedOwner = { tenantId, livemode: opts.livemode ?? true };
  const base = opts.start ?? BASE;
  const r = prng(20261001 + scale);
  const [integration] = integrationId
    ? await db
        .select({ id: integrations.id })
        .from(integrations)
        .where(and(eq(integrations.id, integrationId), eq(integrations.tenantId, tenantId)))
    : await db.select({ id: integrations.id }).from(integrations).where(eq(integrations.tenantId, tenantId)).limit(1);
  if (!integration && owner.livemode)
    throw new Error("The tenant needs an integration before seeding (npm run admin -- integration:create ...).");
  const [apiChannel] = integration
    ? await db
        .select({ id: channels.id })
        .from(channels)
        .where(and(eq(channels.integrationId, integration.id), eq(channels.type, "api")))
    : [];
  const chans: { id: string | null; type: string }[] = [{ id: apiChannel?.id ?? null, type: "api" }];
  for (const type of MESSENGERS) {
    if (!owner.livemode) {
      chans.push({ id: null, type });
      continue;
    }
    const [c] = await db
      .insert(channels)
      .values({ tenantId, type, name: `Seeded ${type}` })
      .returning({ id: channels.id });
    chans.push({ id: c.id, type });
  }
  const filePrefix = owner.livemode ? `${tenantId}/attachments` : `${tenantId}/sandbox/attachments`;

  const nConv = 4 * scale;
  const contactRows = Array.from({ length: nConv }, (_, i) => {
    const first = r.pick(FIRST);
    const last = r.pick(LAST);
    return {
      id: randomUUID(),
      ...owner,
      firstName: first,
      lastName: last,
      email: `${first}.${last}.${i}@example.com`.toLowerCase(),
      phone: `+7900${String(1000000 + i).slice(-7)}`,
      tags: r.next() < 0.3 ? ["vip"] : [],
      geoCountry: "RU",
      geoCity: r.pick(CITY),
      createdAt: new Date(base + i * MIN),
      updatedAt: new Date(base + i * MIN),
    };
  });
  await insertBatched(db, contacts, contactRows, 12);

  const convRows = contactRows.map((c, i) => {
    const ch = r.pick(chans);
    const kind = i % 20 === 7 ? "personal_mailbox" : i % 25 === 11 ? "student_cabinet" : "customer";
    return {
      id: randomUUID(),
      ...owner,
      channelId: ch.id,
      channelType: ch.type,
      kind,
      contactId: c.id,
      externalCustomerId: ch.type === "api" ? `crm-${1000 + i}` : null,
      status: r.pick(["open", "open", "handoff_pending", "resolved", "closed"]),
      mode: r.next() < 0.75 ? "ai" : "operator",
      language: r.pick(["ru", "ru", "en"]),
      createdAt: new Date(base + i * 3 * MIN),
      updatedAt: new Date(base + i * 3 * MIN),
    };
  });
  await insertBatched(db, conversations, convRows, 13);

  // Messages are made and written batch by batch, so a million of them never sit in memory at once.
  const nMsg = 100 * scale;
  const BATCH = 5000;
  let firstMessageId: string | null = null;
  for (let start = 0; start < nMsg; start += BATCH) {
    const msgRows = [];
    const attRows = [];
    for (let i = start; i < Math.min(nMsg, start + BATCH); i++) {
      const conv = convRows[i % convRows.length];
      const turn = Math.floor(i / convRows.length);
      const at = conv.createdAt!.getTime() + turn * 2 * MIN + (i % 7) * 1000;
      const note = i % 33 === 5;
      const deleted = i % 50 === 3;
      const hasFile = i % 20 === 9;
      const id = randomUUID();
      firstMessageId ??= id;
      msgRows.push({
        id,
        ...owner,
        conversationId: conv.id,
        sender: note ? "operator" : turn % 2 === 0 ? "customer" : "ai",
        contentType: hasFile ? "image" : "text",
        content: note
          ? "Internal note: check stock before promising."
          : turn % 2 === 0
            ? r.pick(CUSTOMER_LINES)
            : r.pick(AI_LINES),
        internal: note,
        deletedAt: deleted ? new Date(at + MIN) : null,
        createdAt: new Date(at),
      });
      if (hasFile) {
        attRows.push({
          ...owner,
          messageId: id,
          fileName: `photo-${i}.jpg`,
          mimeType: "image/jpeg",
          sizeBytes: TINY_JPEG.length,
          storagePath: `${filePrefix}/sample-${i % SAMPLE_FILES}.jpg`,
          externalUrl:
            conv.channelType === "telegram" ? `https://api.telegram.org/file/bot-secret/photo-${i}.jpg` : null,
        });
      }
    }
    await insertBatched(db, messages, msgRows, 11);
    await insertBatched(db, messageAttachments, attRows, 9);
  }
  const dir = storedFilePath(`${filePrefix}/sample-0.jpg`);
  if (dir) {
    await mkdir(path.dirname(dir), { recursive: true });
    for (let i = 0; i < SAMPLE_FILES; i++) await writeFile(storedFilePath(`${filePrefix}/sample-${i}.jpg`)!, TINY_JPEG);
  }
  // A conversation's updated_at is its last message; only conversations of the seeded mode are touched.
  await db.execute(
    sql`update conversations c set updated_at = m.last from (select conversation_id, max(created_at) as last from messages where tenant_id = ${tenantId} and livemode = ${owner.livemode} group by conversation_id) m where c.id = m.conversation_id and c.tenant_id = ${tenantId} and c.livemode = ${owner.livemode}`,
  );

  const nLeads = 10 * scale;
  const leadRows = Array.from({ length: nLeads }, (_, i) => {
    const status = STATUSES[i % STATUSES.length];
    const at = base + i * 5 * MIN;
    const c = contactRows[i % contactRows.length];
    return {
      ...owner,
      status,
      archived: i % 10 === 4,
      archivedReason: i % 10 === 4 ? "ai_not_client" : null,
      version: 1 + (i % 3),
      title: `${c.firstName} ${c.lastName}: ${r.pick(["shoes", "jacket", "gift card", "bulk order"])}`,
      source: r.pick(SOURCES),
      conversationId: convRows[i % convRows.length].kind === "customer" ? convRows[i % convRows.length].id : null,
      contactId: c.id,
      intent: r.pick(["buy", "question", "return", null]),
      aiSummary: "Asked about sizes and delivery; ready to order.",
      nextAction: status === "won" || status === "lost" ? null : "Call back",
      lostReason: status === "lost" ? "price" : null,
      valueMinor: BigInt(100_000 + r.int(5_000_000)),
      valueCurrency: "RUB",
      attribution: {
        utm_source: r.pick(["yandex", "google", null]),
        utm_medium: "cpc",
        utm_campaign: "autumn",
        first_page: "/catalog",
        referrer: null,
      },
      score: {
        score: r.int(100),
        grade: r.pick(["A", "B", "C", "D"]),
        reason: "Engaged buyer",
        flags: [],
        source: "ai",
        model: "scorer-1",
        scored_at: new Date(at).toISOString(),
      },
      flags: { buy_intent: r.next() < 0.5, support: false, supplier: false },
      qualifiedAt: status === "new" ? null : new Date(at + MIN),
      wonAt: status === "won" ? new Date(at + 2 * MIN) : null,
      lostAt: status === "lost" ? new Date(at + 2 * MIN) : null,
      lastActivityAt: new Date(at + 2 * MIN),
      createdAt: new Date(at),
      updatedAt: new Date(at + 2 * MIN),
    };
  });
  await insertBatched(db, leads, leadRows, 35);

  const nArticles = Math.min(200, 6 + 2 * scale);
  const articleRows = Array.from({ length: nArticles }, (_, i) => ({
    ...owner,
    title: `How to choose running shoes, part ${i + 1}`,
    slug: `running-shoes-${i + 1}`,
    status: ["draft", "review", "approved", "published", "rejected"][i % 5] as string,
    locale: "ru",
    keyword: "running shoes",
    metaTitle: `Running shoes guide ${i + 1}`,
    metaDescription: "What to look for in trail and road shoes.",
    wordCount: 300 + i,
    bodyHtml: `<h2>Fit</h2><p>Leave a thumb's width at the toe.</p><ul><li>Trail</li><li>Road</li></ul><p><a href="https://demo-shop.example/catalog">Catalog</a></p>`,
    createdAt: new Date(base + i * 60 * MIN),
    updatedAt: new Date(base + i * 60 * MIN),
    publishedAt: i % 5 === 3 ? new Date(base + i * 60 * MIN) : null,
    publication:
      i % 5 === 3
        ? {
            target: "connector" as const,
            state: "applied" as const,
            published_url: `https://demo-shop.example/blog/running-shoes-${i + 1}`,
            error: null,
          }
        : null,
  }));
  articleRows.push(
    {
      ...articleRows[0],
      title: "Hostile HTML sample",
      slug: "hostile",
      status: "review",
      bodyHtml: `<p onclick="steal()">Hi<script>alert(1)</script></p><a href="javascript:alert(2)">x</a><img src="data:image/png;base64,AAAA" onerror="alert(3)"><p style="color:red">styled</p>`,
      publication: null,
      publishedAt: null,
      updatedAt: null as unknown as Date,
    },
    {
      ...articleRows[0],
      title: "Moved to the shared blog",
      slug: "moved",
      status: "transferred",
      bodyHtml: "<p>moved</p>",
      publication: null,
      publishedAt: null,
    },
  );
  await insertBatched(db, articles, articleRows, 21);
  await db.insert(articles).values([
    {
      ...owner,
      title: "Editor document sample",
      status: "draft",
      locale: "ru",
      bodyDoc: {
        type: "doc",
        content: [
          { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Care" }] },
          { type: "paragraph", content: [{ type: "text", text: "Dry shoes away from heaters." }] },
        ],
      },
      updatedAt: new Date(base),
    },
    {
      ...owner,
      blog: "shared",
      title: "Platform blog post",
      status: "published",
      bodyHtml: "<p>shared</p>",
      updatedAt: new Date(base),
    },
  ]);

  await seedStrategist(db, owner, base, r, integration?.id ?? null);

  await db
    .insert(dashboardBlocks)
    .values(
      DASHBOARD_BLOCKS.map((block, i) => {
        const availability = AVAIL[i % AVAIL.length];
        return {
          ...owner,
          block,
          availability,
          reason: availability === "ok" ? null : `${availability.replace("_", " ")} for ${block}`,
          dataAsOf: (availability === "ok" ? { analytics: "2026-11-20" } : {}) as Record<string, string>,
          payload: availability === "ok" ? { value: 100 + i } : null,
        };
      }),
    )
    .onConflictDoNothing();

  if (owner.livemode && integration)
    await db.insert(operations).values([
      {
        tenantId,
        integrationId: integration.id,
        type: "conversation.ai_reply",
        status: "succeeded",
        resourceType: "message",
        resourceId: firstMessageId,
        usage: { cost: { amount: "1.50", currency: "RUB" }, model: "seller-1" },
        completedAt: new Date(base + MIN),
      },
    ]);
  // An article generation (issue 72) that wrote the first article, as the engine records one: its job and
  // operation succeeded and name each other.
  if (owner.livemode && integration) {
    const usage = { cost: { amount: "0.38", currency: "RUB" }, model: "offline-writer-1" };
    const [first] = await db
      .select({ id: articles.id })
      .from(articles)
      .where(and(eq(articles.tenantId, tenantId), eq(articles.slug, "running-shoes-1")));
    const done = new Date(base + 2 * MIN);
    const [op] = await db
      .insert(operations)
      .values({
        tenantId,
        integrationId: integration.id,
        type: "article.generation",
        status: "succeeded",
        usage,
        createdAt: new Date(base + MIN),
        completedAt: done,
      })
      .returning({ id: operations.id });
    const [job] = await db
      .insert(generationJobs)
      .values({
        tenantId,
        operationId: op!.id,
        integrationId: integration.id,
        keyword: "running shoes",
        targetWords: 1200,
        status: "succeeded",
        articleId: first?.id ?? null,
        usage,
        createdAt: new Date(base + MIN),
        completedAt: done,
      })
      .returning({ id: generationJobs.id });
    await db
      .update(operations)
      .set({ resourceType: "generation_job", resourceId: job!.id })
      .where(eq(operations.id, op!.id));
  }
  return { conversations: convRows.length, messages: nMsg, leads: leadRows.length, articles: articleRows.length + 2 };
}
