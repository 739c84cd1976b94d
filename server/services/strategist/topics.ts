import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistTopics } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { StrategistTopic } from "@/server/schemas/strategist";
import { ownedBy, type Owner } from "../tenant-scope";
import { competitorMasker } from "./competitor-mask";

type TopicRow = typeof strategistTopics.$inferSelect;

/** Keyset position of a topic: [trend_score or null (not scored), id]. */
export type TopicPosition = [number | null, string];

/** Row → StrategistTopic; the competitor domain is never returned and reads as "a competitor" in the texts. */
export function toTopic(t: TopicRow): StrategistTopic {
  const mask = competitorMasker([t.competitorDomain]);
  return {
    id: t.id,
    title: t.title === null ? null : mask(t.title),
    rationale: t.rationale === null ? null : mask(t.rationale),
    trend_score: t.trendScore,
    source: t.source,
    status: t.status as StrategistTopic["status"],
    cluster_id: t.clusterId,
    generated_article_id: t.generatedArticleId,
    proposed_at: t.proposedAt?.toISOString() ?? null,
    decided_at: t.decidedAt?.toISOString() ?? null,
    expires_at: t.expiresAt?.toISOString() ?? null,
  };
}

/**
 * Rows strictly after a position in the order `trend_score DESC NULLS LAST, id DESC`. After a scored row come
 * lower scores, the same score with a smaller id, then every unscored row; after an unscored row only
 * unscored rows with a smaller id.
 */
function afterPosition([score, id]: TopicPosition) {
  const t = strategistTopics;
  if (score === null) return and(isNull(t.trendScore), lt(t.id, id));
  return or(
    sql`${t.trendScore} < ${score}::double precision`,
    and(sql`${t.trendScore} = ${score}::double precision`, lt(t.id, id)),
    isNull(t.trendScore),
  );
}

/**
 * `GET /strategist/topics`: a page of the topics of the actor's tenant and mode (tenant-scope.ts), ordered by trend score descending (not scored last), then id descending,
 * strictly after `after`. Fetches `limit + 1` rows to know whether a next page exists.
 */
export async function listTopics(
  db: Db,
  actor: Owner,
  q: { limit: number; status?: string; after?: TopicPosition },
): Promise<{ topics: StrategistTopic[]; next: TopicPosition | null }> {
  const conds = [ownedBy(strategistTopics, actor)];
  if (q.status) conds.push(eq(strategistTopics.status, q.status));
  if (q.after) conds.push(afterPosition(q.after)!);
  const rows = await db
    .select()
    .from(strategistTopics)
    .where(and(...conds))
    .orderBy(sql`${strategistTopics.trendScore} desc nulls last`, desc(strategistTopics.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { topics: page.map(toTopic), next: rows.length > q.limit && last ? [last.trendScore, last.id] : null };
}

/** `GET /strategist/topics/{id}`. @throws ApiError 404 `not_found` for a missing, foreign or other-mode topic. */
export async function getTopic(db: Db, actor: Owner, id: string): Promise<StrategistTopic> {
  const [row] = await db
    .select()
    .from(strategistTopics)
    .where(and(ownedBy(strategistTopics, actor), eq(strategistTopics.id, id)));
  if (!row) throw notFound("Strategist topic");
  return toTopic(row);
}
