import type { Db } from "@/db/client";
import { strategistActions, strategistReports, strategistSessions, strategistTopics } from "@/db/schema";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";

/** A regular daily report of the owner. */
async function report(db: Db, o: TenantFixture): Promise<string> {
  const [r] = await db
    .insert(strategistReports)
    .values({
      tenantId: o.tenantId,
      reportDate: "2026-11-01",
      reportType: "daily",
      summaryText: "Matrix",
      dataAsOf: {},
      highlights: [],
      concerns: [],
      actions: [],
      evidence: {},
    })
    .returning({ id: strategistReports.id });
  return r.id;
}

/** A scored topic of the owner. */
async function topic(db: Db, o: TenantFixture): Promise<string> {
  const [t] = await db
    .insert(strategistTopics)
    .values({ tenantId: o.tenantId, title: "Matrix", trendScore: 1, source: "planner" })
    .returning({ id: strategistTopics.id });
  return t.id;
}

/** A chat session of the owner's integration (the only kind the API shows). */
async function session(db: Db, o: TenantFixture): Promise<string> {
  const [s] = await db
    .insert(strategistSessions)
    .values({ tenantId: o.tenantId, integrationId: o.integrationId })
    .returning({ id: strategistSessions.id });
  return s.id;
}

/** An action in a session of the owner's integration (the only kind the API shows). */
async function action(db: Db, o: TenantFixture): Promise<string> {
  const s = { id: await session(db, o) };
  const [a] = await db
    .insert(strategistActions)
    .values({ tenantId: o.tenantId, sessionId: s.id, title: "Matrix" })
    .returning({ id: strategistActions.id });
  return a.id;
}

/** Isolation fixtures of the strategist id routes (see ID_ROUTE_FIXTURES). */
export const STRATEGIST_FIXTURES: Record<string, IdRouteFixture> = {
  getStrategistReport: {
    make: async (db, o) => `/strategist/reports/${await report(db, o)}`,
    missing: async () => `/strategist/reports/${crypto.randomUUID()}`,
  },
  getStrategistTopic: {
    make: async (db, o) => `/strategist/topics/${await topic(db, o)}`,
    missing: async () => `/strategist/topics/${crypto.randomUUID()}`,
  },
  getStrategistAction: {
    make: async (db, o) => `/strategist/actions/${await action(db, o)}`,
    missing: async () => `/strategist/actions/${crypto.randomUUID()}`,
  },
  // Preview `strategist` (issue 73): decisions, sessions and turns.
  confirmStrategistAction: {
    make: async (db, o) => `/strategist/actions/${await action(db, o)}/confirm`,
    missing: async () => `/strategist/actions/${crypto.randomUUID()}/confirm`,
  },
  cancelStrategistAction: {
    make: async (db, o) => `/strategist/actions/${await action(db, o)}/cancel`,
    missing: async () => `/strategist/actions/${crypto.randomUUID()}/cancel`,
  },
  approveStrategistTopic: {
    make: async (db, o) => `/strategist/topics/${await topic(db, o)}/approve`,
    missing: async () => `/strategist/topics/${crypto.randomUUID()}/approve`,
  },
  rejectStrategistTopic: {
    make: async (db, o) => `/strategist/topics/${await topic(db, o)}/reject`,
    missing: async () => `/strategist/topics/${crypto.randomUUID()}/reject`,
  },
  getStrategistSession: {
    make: async (db, o) => `/strategist/chat/sessions/${await session(db, o)}`,
    missing: async () => `/strategist/chat/sessions/${crypto.randomUUID()}`,
  },
  createStrategistTurn: {
    make: async (db, o) => `/strategist/chat/sessions/${await session(db, o)}/turns`,
    missing: async () => `/strategist/chat/sessions/${crypto.randomUUID()}/turns`,
    body: { content: "How did leads change this week?" },
  },
};
