import { and, desc, eq, isNotNull, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import {
  articles,
  conversations,
  dashboardBlocks,
  editorialProfiles,
  generationJobs,
  leads,
  products,
  strategistReports,
  strategistTopics,
} from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import type {
  DashboardFigure,
  PageTraffic,
  PeriodPair,
  SourceFigures,
  StrategistFigures,
} from "@/server/lib/strategist/analyst-io";
import { ownedBy, type Owner } from "../tenant-scope";
import { competitorMasker, maskJson } from "./competitor-mask";

const DAY_MS = 86_400_000;
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Bounds of the four windows, ISO timestamps: last 7 days, the 7 before, last 30, the 30 before. */
function windows(at: number) {
  const iso = (days: number) => new Date(at - days * DAY_MS).toISOString();
  return { now: iso(0), w0: iso(7), w1: iso(14), m0: iso(30), m1: iso(60) };
}

type Windows = ReturnType<typeof windows>;

const sourceOf = sql<string>`coalesce(nullif(${leads.source}, ''), 'unknown')`;
const int = (q: SQL) => sql<number>`(${q})::int`.mapWith(Number);

/** `count(*)` of rows whose `col` falls in each of the four windows (SQL aggregates). */
function periodCounts(col: AnyPgColumn, w: Windows) {
  const within = (from: string, to: string) =>
    int(sql`count(*) filter (where ${col} >= ${from}::timestamptz and ${col} < ${to}::timestamptz)`);
  return {
    wCur: within(w.w0, w.now),
    wPrev: within(w.w1, w.w0),
    mCur: within(w.m0, w.now),
    mPrev: within(w.m1, w.m0),
  };
}

type Counts = { wCur: number; wPrev: number; mCur: number; mPrev: number };
const ZERO: Counts = { wCur: 0, wPrev: 0, mCur: 0, mPrev: 0 };
const add = (a: Counts, b: Counts): Counts => ({
  wCur: a.wCur + b.wCur,
  wPrev: a.wPrev + b.wPrev,
  mCur: a.mCur + b.mCur,
  mPrev: a.mPrev + b.mPrev,
});
const pair = (c: Counts): PeriodPair => ({
  week: { current: c.wCur, previous: c.wPrev },
  month: { current: c.mCur, previous: c.mPrev },
});

/** The payload's top-level finite numbers (at most 12), keys in order. */
function numericFields(payload: Record<string, unknown> | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(payload ?? {})) {
    if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
    if (Object.keys(out).length >= 12) break;
  }
  return out;
}

/** Pages of a `popular_pages` payload `{pages: [{url|path|page|title, sessions|views|pageviews}]}`, most first. */
function pagesOf(payload: Record<string, unknown> | null): PageTraffic[] | null {
  const list = payload?.pages;
  if (!Array.isArray(list)) return null;
  const pages: PageTraffic[] = [];
  for (const p of list.slice(0, 200)) {
    if (!p || typeof p !== "object") continue;
    const o = p as Record<string, unknown>;
    const page = [o.path, o.url, o.page, o.title].find((v): v is string => typeof v === "string" && v.length > 0);
    const sessions = [o.sessions, o.views, o.pageviews].find((v): v is number => typeof v === "number");
    if (page && sessions !== undefined) pages.push({ page: page.slice(0, 300), sessions });
  }
  return pages.sort((a, b) => b.sessions - a.sessions || a.page.localeCompare(b.page)).slice(0, 10);
}

/**
 * The strategist's figures of one tenant and mode (issue 73 item 3; spec "Strategist resources"), read at
 * the clock's now (server/lib/clock.ts): the dashboard blocks, leads by status and by source with the
 * week (last 7 days vs the 7 before) and month (30 vs 30) comparisons, conversations' outcomes, the
 * tenant's articles and their traffic (the `popular_pages` block), topics already proposed, keywords and
 * active cards. Every query is filtered by {@link ownedBy} and bounded (SQL aggregates or a LIMIT), so
 * nothing of another tenant or mode can appear. Competitor names and domains (topics' `competitor_domain`,
 * reports' `competitor_names`) are replaced by "a competitor" in every text of the answer.
 * `dataAsOf`: the platform's own data (leads, conversations, articles, topics) is read live, complete through
 * `asOf`; each dashboard source's date is the latest its blocks report.
 */
export async function readStrategistFigures(db: Db, owner: Owner): Promise<StrategistFigures> {
  const at = nowMs();
  const w = windows(at);
  const asOf = dayText(at);
  const [
    leadRows,
    convRows,
    leadConvs,
    articleRows,
    recent,
    blocks,
    topicRows,
    competitorRows,
    keywordRows,
    cardRows,
    profile,
  ] = await Promise.all([
    db
      .select({
        status: leads.status,
        source: sourceOf,
        total: int(sql`count(*)`),
        ...periodCounts(leads.createdAt, w),
        won: periodCounts(leads.wonAt, w),
      })
      .from(leads)
      .where(ownedBy(leads, owner))
      .groupBy(leads.status, sourceOf)
      .limit(1000),
    db
      .select({
        status: conversations.status,
        total: int(sql`count(*)`),
        byOperator: int(sql`count(*) filter (where ${conversations.mode} = 'operator')`),
        ...periodCounts(conversations.createdAt, w),
      })
      .from(conversations)
      .where(and(ownedBy(conversations, owner), eq(conversations.kind, "customer")))
      .groupBy(conversations.status),
    db
      .select({ n: int(sql`count(distinct ${leads.conversationId})`) })
      .from(leads)
      .innerJoin(conversations, eq(conversations.id, leads.conversationId))
      .where(and(ownedBy(leads, owner), eq(conversations.kind, "customer"))),
    db
      .select({ status: articles.status, total: int(sql`count(*)`), ...periodCounts(articles.publishedAt, w) })
      .from(articles)
      .where(and(ownedBy(articles, owner), eq(articles.blog, "tenant")))
      .groupBy(articles.status),
    db
      .select({
        title: articles.title,
        status: articles.status,
        keyword: articles.keyword,
        publishedAt: articles.publishedAt,
        wordCount: articles.wordCount,
        locale: articles.locale,
      })
      .from(articles)
      .where(and(ownedBy(articles, owner), eq(articles.blog, "tenant")))
      .orderBy(sql`${articles.updatedAt} desc nulls last`, desc(articles.id))
      .limit(10),
    db.select().from(dashboardBlocks).where(ownedBy(dashboardBlocks, owner)).limit(50),
    db
      .select({
        title: strategistTopics.title,
        status: strategistTopics.status,
        trendScore: strategistTopics.trendScore,
        competitorDomain: strategistTopics.competitorDomain,
      })
      .from(strategistTopics)
      .where(and(ownedBy(strategistTopics, owner), isNotNull(strategistTopics.title)))
      .orderBy(desc(strategistTopics.createdAt), desc(strategistTopics.id))
      .limit(100),
    db
      .selectDistinct({ name: sql<string>`unnest(${strategistReports.competitorNames})` })
      .from(strategistReports)
      .where(ownedBy(strategistReports, owner))
      .limit(200),
    db
      .select({ keyword: sql<string>`k.keyword`, articles: int(sql`sum(k.n)`) })
      .from(
        sql`(select lower(trim(${articles.keyword})) as keyword, 1 as n from ${articles}
                where ${ownedBy(articles, owner)} and ${articles.blog} = 'tenant' and ${articles.keyword} is not null
               union all
               select lower(trim(${generationJobs.keyword})), 0 from ${generationJobs}
                where ${ownedBy(generationJobs, owner)} and ${generationJobs.keyword} is not null) as k`,
      )
      .where(sql`k.keyword <> ''`)
      .groupBy(sql`k.keyword`)
      .orderBy(sql`sum(k.n) desc`, sql`count(*) desc`, sql`k.keyword`)
      .limit(20),
    db
      .select({ code: products.code, name: products.name, priceText: products.priceText })
      .from(products)
      .where(and(ownedBy(products, owner), eq(products.active, true), isNotNull(products.code)))
      .orderBy(products.sort, products.createdAt, products.id)
      .limit(20),
    db
      .select({ locale: editorialProfiles.locale })
      .from(editorialProfiles)
      .where(ownedBy(editorialProfiles, owner))
      .limit(1),
  ]);

  // Leads: statuses, sources and the two comparisons from one grouped aggregate.
  const byStatus: Record<string, number> = {};
  const sources = new Map<string, { total: number; won: number; created: Counts }>();
  let created = ZERO;
  let won = ZERO;
  for (const r of leadRows) {
    const c = { wCur: r.wCur, wPrev: r.wPrev, mCur: r.mCur, mPrev: r.mPrev };
    byStatus[r.status] = (byStatus[r.status] ?? 0) + r.total;
    created = add(created, c);
    won = add(won, r.won);
    const s = sources.get(r.source) ?? { total: 0, won: 0, created: ZERO };
    sources.set(r.source, {
      total: s.total + r.total,
      won: s.won + (r.status === "won" ? r.total : 0),
      created: add(s.created, c),
    });
  }
  const bySource: SourceFigures[] = [...sources.entries()]
    .map(([source, s]) => ({ source, total: s.total, won: s.won, created: pair(s.created) }))
    .sort((a, b) => b.total - a.total || a.source.localeCompare(b.source))
    .slice(0, 10);

  let convCounts = ZERO;
  const convByStatus: Record<string, number> = {};
  let byOperator = 0;
  for (const r of convRows) {
    convByStatus[r.status] = r.total;
    byOperator += r.byOperator;
    convCounts = add(convCounts, r);
  }

  let published = ZERO;
  const articleByStatus: Record<string, number> = {};
  for (const r of articleRows) {
    articleByStatus[r.status] = r.total;
    published = add(published, r);
  }

  // Dashboard blocks in a fixed order; each source's date is the latest any block reports.
  const dashboard: DashboardFigure[] = blocks
    .sort((a, b) => a.block.localeCompare(b.block))
    .map((b) => ({
      block: b.block,
      availability: b.availability,
      reason: b.reason,
      metrics: numericFields(b.payload ?? null),
    }));
  const dataAsOf: Record<string, string> = {};
  for (const b of blocks)
    for (const [source, day] of Object.entries(b.dataAsOf ?? {}))
      if (typeof day === "string" && (!dataAsOf[source] || day > dataAsOf[source])) dataAsOf[source] = day;
  for (const own of ["leads", "conversations", "articles", "topics"]) dataAsOf[own] = asOf;
  const popular = blocks.find((b) => b.block === "popular_pages" && b.availability === "ok");
  const sessions = ["kpi", "funnel"]
    .map((name) => dashboard.find((d) => d.block === name && d.availability === "ok")?.metrics.sessions)
    .find((v) => v !== undefined);

  const locales = recent.map((a) => a.locale).filter((l): l is string => !!l);
  const language = (profile[0]?.locale ?? locales[0] ?? null)?.slice(0, 2).toLowerCase() ?? null;

  const figures: StrategistFigures = {
    asOf,
    dataAsOf,
    language,
    leads: {
      total: leadRows.reduce((n, r) => n + r.total, 0),
      byStatus,
      created: pair(created),
      won: pair(won),
      bySource,
    },
    conversations: {
      total: convRows.reduce((n, r) => n + r.total, 0),
      byStatus: convByStatus,
      withLead: leadConvs[0]?.n ?? 0,
      byOperator,
      started: pair(convCounts),
    },
    articles: {
      total: articleRows.reduce((n, r) => n + r.total, 0),
      byStatus: articleByStatus,
      published: pair(published),
      recent: recent.map((a) => ({
        title: a.title,
        status: a.status,
        keyword: a.keyword,
        publishedOn: a.publishedAt ? dayText(a.publishedAt.getTime()) : null,
        wordCount: a.wordCount,
      })),
      traffic: popular ? pagesOf(popular.payload ?? null) : null,
    },
    funnel: { sessions: sessions ?? null, leads: created.mCur, won: won.mCur },
    dashboard,
    topics: topicRows.map((t) => ({
      // A competitor-derived topic's own domain first, then every known name below.
      title: competitorMasker([t.competitorDomain])(t.title ?? ""),
      status: t.status,
      trendScore: t.trendScore,
    })),
    keywords: keywordRows,
    cards: cardRows.map((c) => ({ code: c.code!, name: c.name, priceText: c.priceText })),
  };
  const names = [...competitorRows.map((r) => r.name), ...topicRows.map((t) => t.competitorDomain)];
  return maskJson(figures, competitorMasker(names));
}
