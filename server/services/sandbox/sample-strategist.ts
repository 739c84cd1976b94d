import { and, isNotNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { operations, strategistSessions, strategistTurns } from "@/db/schema";
import { ownedBy } from "../tenant-scope";
import { momentOf, type SandboxContext } from "./sample-context";

/** The question and answer of the sandbox's sample chat turn (docs/strategist.md "Test mode"). */
const SAMPLE_QUESTION = "How did leads change this week?";
const SAMPLE_REPLY =
  "This is a sample turn of the sandbox. Ask your own question in this session: the offline analyst answers from the sandbox's figures, and the turn is paid from the sandbox wallet.";

/**
 * The sandbox's strategist chat sample (issue 73): in each session an integration has in the sandbox, one
 * finished turn with its `strategist.turn` operation (unpaid, as the sample article generations are), so a
 * test key's `GET /strategist/chat/sessions/{id}` shows how a turn reads.
 */
export async function seedSandboxStrategistTurns(tx: Db, ctx: SandboxContext): Promise<void> {
  const sessions = await tx
    .select()
    .from(strategistSessions)
    .where(and(ownedBy(strategistSessions, ctx.owner), isNotNull(strategistSessions.integrationId)));
  for (const [i, s] of sessions.entries()) {
    const createdAt = momentOf(ctx, 1, 0.4 + i * 0.01);
    const completedAt = new Date(createdAt.getTime() + 1_500);
    const [op] = await tx
      .insert(operations)
      .values({
        ...ctx.owner,
        integrationId: s.integrationId,
        type: "strategist.turn",
        status: "succeeded",
        resourceType: "strategist_session",
        resourceId: s.id,
        attempts: 1,
        createdAt,
        completedAt,
        deadlineAt: new Date(createdAt.getTime() + 300_000),
      })
      .returning({ id: operations.id });
    await tx.insert(strategistTurns).values({
      ...ctx.owner,
      sessionId: s.id,
      operationId: op!.id,
      content: SAMPLE_QUESTION,
      status: "succeeded",
      reply: SAMPLE_REPLY,
      createdAt,
      completedAt,
    });
  }
}
