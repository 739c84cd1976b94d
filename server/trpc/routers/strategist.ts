import { z } from "zod";
import { ActionStatus, ReportType, TopicStatus } from "@/server/schemas/strategist";
import { CreateTurnSchema } from "@/server/schemas/strategist-writes";
import { listActions } from "@/server/services/strategist/actions";
import { createSession, getSession, listStaffSessions } from "@/server/services/strategist/chat-sessions";
import { approveTopic, cancelAction, confirmAction, rejectTopic } from "@/server/services/strategist/decisions";
import { getReport, listReports } from "@/server/services/strategist/reports";
import { getTopic } from "@/server/services/strategist/topics";
import {
  TOPIC_ORDERS,
  consoleSendTurn,
  consoleTopics,
  turnQuote,
} from "@/server/services/strategist/strategist-console";
import { router, tenantProcedure } from "../init";

const Cursor = z.tuple([z.iso.datetime(), z.uuid()]).nullable().default(null);
const ById = z.object({ id: z.uuid() });

/**
 * The console's Strategist page (issue 73 item 5), in the console's mode: reports, topics and actions with
 * their decisions, and the staff member's chat sessions with paid turns.
 *
 * No preview flag: the `strategist` preview gates the public API's routes only, and the console's lead
 * scoring and article generation, whose API routes are behind previews too, need none either. No right:
 * like the API's `strategist:*` scopes, which need no staff right, every member of the tenant may read and
 * decide; a turn is paid from the wallet of the console's mode with no right, as the console's "Generate
 * article" (server/trpc/routers/article-generation.ts). A staff member sees and decides every action of the
 * tenant (API sessions' and staff sessions'), but chats only in their own sessions.
 */
export const strategistRouter = router({
  reports: tenantProcedure
    .input(
      z.object({
        reportType: ReportType.optional(),
        cursor: Cursor,
        limit: z.number().int().min(1).max(50).default(20),
      }),
    )
    .query(({ ctx, input }) =>
      listReports(ctx.db, ctx.actor, {
        limit: input.limit,
        reportType: input.reportType,
        after: input.cursor ?? undefined,
      }),
    ),
  report: tenantProcedure.input(ById).query(({ ctx, input }) => getReport(ctx.db, ctx.actor, input.id)),
  topics: tenantProcedure
    .input(z.object({ status: TopicStatus.optional(), order: z.enum(TOPIC_ORDERS).default("newest") }))
    .query(({ ctx, input }) => consoleTopics(ctx.db, ctx.actor, input)),
  topic: tenantProcedure.input(ById).query(({ ctx, input }) => getTopic(ctx.db, ctx.actor, input.id)),
  actions: tenantProcedure
    .input(
      z.object({
        status: ActionStatus.optional(),
        sessionId: z.uuid().optional(),
        cursor: Cursor,
        limit: z.number().int().min(1).max(100).default(50),
      }),
    )
    .query(({ ctx, input }) =>
      listActions(ctx.db, ctx.actor, {
        limit: input.limit,
        status: input.status,
        sessionId: input.sessionId,
        after: input.cursor ?? undefined,
      }),
    ),
  sessions: tenantProcedure.query(({ ctx }) => listStaffSessions(ctx.db, ctx.actor)),
  session: tenantProcedure.input(ById).query(({ ctx, input }) => getSession(ctx.db, ctx.actor, input.id)),
  quote: tenantProcedure.query(({ ctx }) => turnQuote(ctx.actor)),
  // Decisions lock their row (and a topic title), so each runs in its own transaction.
  approveTopic: tenantProcedure
    .input(ById)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => approveTopic(tx as typeof ctx.db, ctx.actor, input.id))),
  rejectTopic: tenantProcedure
    .input(ById)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => rejectTopic(tx as typeof ctx.db, ctx.actor, input.id))),
  confirmAction: tenantProcedure
    .input(ById)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => confirmAction(tx as typeof ctx.db, ctx.actor, input.id))),
  cancelAction: tenantProcedure
    .input(ById)
    .mutation(({ ctx, input }) => ctx.db.transaction((tx) => cancelAction(tx as typeof ctx.db, ctx.actor, input.id))),
  createSession: tenantProcedure.mutation(({ ctx }) => createSession(ctx.db, ctx.actor)),
  sendTurn: tenantProcedure
    .input(z.object({ sessionId: z.uuid(), content: CreateTurnSchema.shape.content, clickKey: z.uuid() }))
    .mutation(({ ctx, input }) => consoleSendTurn(ctx.db, ctx.actor, input.sessionId, input.content, input.clickKey)),
});
