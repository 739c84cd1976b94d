import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { strategistActions, strategistReports, strategistSessions, strategistTopics } from "@/db/schema";
import type { Prng } from "./prng";

/** Whose rows a seed writes: the tenant and its world (`livemode` false = the tenant's sandbox). */
export interface SeedOwner {
  tenantId: string;
  livemode: boolean;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const CITY = ["Moscow", "Kazan", "Saint Petersburg", "Novosibirsk", "Yekaterinburg"];
/** Every status an action goes through (spec "States and transitions: Strategist action"). */
const ACTION_STATUSES = ["proposed", "confirmed", "executed", "failed", "cancelled", "expired"] as const;

/**
 * Seeds the strategist of `owner`: 14 reports (a daily one a day from `base`, every seventh weekly, the
 * last one creative, each naming a competitor the API must mask), 20 topics in every status, and one
 * session of `integrationId` (when given) and one of a staff member, each with an action in every status.
 * @param base start of the seeded history, ms since the epoch
 * @param r the seed's random numbers (drawn in a fixed order, so a seed is the same run after run)
 */
export async function seedStrategist(
  db: Db,
  owner: SeedOwner,
  base: number,
  r: Prng,
  integrationId: string | null,
): Promise<void> {
  const reportRows = Array.from({ length: 14 }, (_, i) => ({
    ...owner,
    reportDate: new Date(base + i * DAY).toISOString().slice(0, 10),
    reportType: i % 7 === 6 ? "weekly" : "daily",
    runKind: i === 13 ? "creative" : "regular",
    summaryText: `Organic traffic grew ${i + 2}%; RivalSport gained positions on "trail shoes".`,
    dataAsOf: {
      snapshot: new Date(base + i * DAY).toISOString().slice(0, 10),
      sessions: new Date(base + (i - 1) * DAY).toISOString().slice(0, 10),
    },
    highlights: [{ title: "Blog traffic up", detail: "Three articles reached the top 10." }],
    concerns: [{ title: "Competitor pressure", detail: "RivalSport outranks us for trail shoes." }],
    actions: [
      {
        title: "Refresh the trail shoes guide",
        priority: "high",
        rationale: "RivalSport updated theirs.",
        target_ref: "/blog/running-shoes-1",
        expected_effect: "+5% clicks",
        check_after_days: 14,
        basis: "search_console",
      },
    ],
    evidence: {
      actions: [{ index: 0, status: "supported", basis: "search_console", items: ["position 11 → 8"] }],
      validation: { refs_valid: true, excerpts_valid: true, relevance_checked: true, limitations: [] },
    },
    snapshot: { raw: "internal" },
    model: "strategist-large",
    costMinor: 1234n,
    competitorNames: ["RivalSport"],
    deliveredAt: new Date(base + i * DAY + 8 * HOUR),
    createdAt: new Date(base + i * DAY),
  }));
  await db.insert(strategistReports).values(reportRows);

  await db.insert(strategistTopics).values(
    Array.from({ length: 20 }, (_, i) => ({
      ...owner,
      title: `Topic ${i + 1}: trail running in ${r.pick(CITY)}`,
      rationale: "Rising searches",
      trendScore: i % 6 === 5 ? null : Math.round(r.next() * 1000) / 10,
      source: r.pick(["planner", "competitors", "chat"]),
      status: (["proposed", "approved", "generating", "generated", "rejected", "duplicate", "expired"] as const)[i % 7],
      competitorDomain: i % 3 === 0 ? "rivalsport.example" : null,
      proposedAt: new Date(base + i * HOUR),
      expiresAt: new Date(base + (i + 168) * HOUR),
    })),
  );
  if (integrationId) await seedStrategistSession(db, owner, base, { integrationId }, "Propose topic");
  await seedStrategistSession(db, owner, base, { staffUserId: "seeded-staff" }, "Staff action");
}

/**
 * One strategist session of an integration (whose key then lists its actions, `GET /strategist/actions`)
 * or of a staff member, with one action in every status, an hour apart from `base`; the executed one
 * names the topic it made, the failed one its error.
 * @returns the session's id
 */
export async function seedStrategistSession(
  db: Db,
  owner: SeedOwner,
  base: number,
  who: { integrationId: string } | { staffUserId: string },
  titlePrefix: string,
): Promise<string> {
  const [session] = await db
    .insert(strategistSessions)
    .values({ ...owner, ...who })
    .returning({ id: strategistSessions.id });
  const byIntegration = "integrationId" in who;
  await db.insert(strategistActions).values(
    ACTION_STATUSES.map((status, i) => ({
      ...owner,
      sessionId: session.id,
      title: `${titlePrefix} ${i + 1}`,
      status,
      result: byIntegration && status === "executed" ? { topic_id: randomUUID() } : null,
      error: byIntegration && status === "failed" ? { code: "internal_error", message: "Generation failed" } : null,
      createdAt: new Date(base + i * HOUR),
      expiresAt: new Date(base + i * HOUR + 7 * DAY),
    })),
  );
  return session.id;
}
