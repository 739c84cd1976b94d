import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isApiError, type PlatformClient } from "@platform/sdk";
import { products } from "@/db/schema";
import { startOperationLoop, type OperationLoop } from "@/server/jobs/operation-loop";
import { setPreview } from "@/server/services/tenants/previews";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// The SDK's `strategistChat` (preview `strategist`, issue 73) against the app (in-process API, every answer
// checked against the preview's document): a session, a paid turn waited for, the proposal confirmed into a
// topic, the topic approved and rejected; a tenant without the preview is told the routes do not exist.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let loop: OperationLoop;
let client: PlatformClient;
let off: PlatformClient;

beforeAll(async () => {
  db = await openTestDatabase();
  loop = startOperationLoop(db.db, { pollMs: 20 });
  const t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "strategist", true);
  // The analyst proposes topics from the tenant's cards and keywords.
  await db.db
    .insert(products)
    .values({ tenantId: t.tenantId, code: "TRAIL-1", name: "Trail runner Storm", active: true });
  const o = await makeTenant(db.db);
  const baseUrl = `${TEST_ORIGIN}/api/public/v1`;
  client = createClient({ baseUrl, apiKey: t.key, fetch: inProcessFetch({ preview: "strategist" }) });
  off = createClient({ baseUrl, apiKey: o.key, fetch: inProcessFetch() });
});
afterAll(async () => {
  await loop.stop();
  await db.drop();
});

describe("client.strategistChat", () => {
  it("asks, waits for the reply, confirms a proposal and decides on its topic", async () => {
    const session = await client.strategistChat.createSession();
    expect(session.turns).toEqual([]);
    const { turn, operation } = await client.strategistChat.ask(
      session.id,
      { content: "Which topics should we write about?" },
      { wait: 10 },
    );
    expect(operation).toMatchObject({ type: "strategist.turn", status: "succeeded" });
    expect(turn.reply).toBeTruthy();
    expect(turn.usage?.model).toBe("offline-analyst-1");
    const read = await client.strategistChat.session(session.id);
    expect(read.turns.map((x) => x.id)).toEqual([turn.id]);
    const action = await client.strategistChat.confirmAction(turn.actions[0]!.id);
    expect(action.status).toBe("executed");
    const topicId = action.result!.topic_id;
    expect((await client.strategistChat.approveTopic(topicId)).status).toBe("approved");
    expect((await client.strategistChat.rejectTopic(topicId)).status).toBe("rejected");
    const again = await client.strategistChat.cancelAction(action.id).catch((e: unknown) => e);
    expect(isApiError(again, "invalid_state")).toBe(true);
  });

  it("answers a tenant without the preview with not_found", async () => {
    const err = await off.strategistChat.createSession().catch((e: unknown) => e);
    expect(isApiError(err, "not_found")).toBe(true);
  });
});
