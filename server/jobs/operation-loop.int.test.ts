import { eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/db/schema";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { untilSettled } from "@/server/services/operations/operation-settled";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { startOperationLoop, type OperationLoop } from "./operation-loop";

// The local driver's operation loop keeps live work ahead of test-mode work (issue 76 item 3): a backlog
// of 30 test-mode operations, each held up by a slow model, is queued before a live operation; the live
// one is claimed in the loop's first round and finishes in about the time it takes alone.

/** How long the slow fake model takes per reply, ms. */
const DELAY_MS = 500;

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let live: TenantFixture;
let test: TenantFixture;
let loop: OperationLoop | null = null;
let n = 0;
const P = { preview: "conversation-writes" as const };
/** The customer messages the models were asked to answer, in the order the runs reached the model. */
const asked: string[] = [];

/** The catalog model, slowed by DELAY_MS and recording what it is asked. */
const catalog = catalogModel();
const slow: LanguageModel = {
  model: catalog.model,
  writerModel: catalog.writerModel,
  async reply(input) {
    asked.push(input.turns[input.turns.length - 1]!.content);
    await new Promise((r) => setTimeout(r, DELAY_MS));
    return catalog.reply(input);
  },
  write: (brief) => catalog.write(brief),
  analystModel: catalog.analystModel,
  analyze: (input) => catalog.analyze(input),
};

/** Queues one AI reply operation per message (sent together) on a new conversation of `s`; returns their ids. */
async function queue(s: TenantFixture, contents: string[]): Promise<string[]> {
  const c = await call("POST", "/conversations", { key: s.key, json: { external_customer_id: `c-${++n}` }, ...P });
  const answers = await Promise.all(
    contents.map((content) =>
      call("POST", `/conversations/${c.body.id}/messages`, {
        key: s.key,
        json: { content },
        idempotencyKey: `m-${++n}`,
        ...P,
      }),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(contents.map(() => 202));
  return answers.map((r) => r.body.operation.id as string);
}

/** Starts the loop (8 live slots, the test lane at its default) and answers how long `id` took to finish, ms. */
async function runUntilDone(id: string): Promise<number> {
  const started = performance.now();
  const settled = untilSettled(id, 30_000);
  loop = startOperationLoop(db.db, { pollMs: 20, concurrency: 8, model: slow, offlineModel: slow });
  await settled;
  const ms = performance.now() - started;
  const [op] = await db.db.select().from(operations).where(eq(operations.id, id));
  expect(op!.status).toBe("succeeded");
  return ms;
}

beforeAll(async () => {
  db = await openTestDatabase();
  live = await makeTenant(db.db);
  test = await makeTenant(db.db, { key: { mode: "test" } });
  for (const s of [live, test]) await setPreview(db.db, s.tenantId, "conversation-writes", true);
  // Room for the whole backlog in one tenant (test-mode operations count in the paid limits).
  await setLimitOverride(db.db, { tenantId: test.tenantId }, { paidConcurrency: 100, paidPerMin: 100 });
});
afterEach(async () => {
  await loop?.stop();
  loop = null;
});
afterAll(async () => db.drop());

describe("the operation loop", () => {
  it("claims a live operation before 30 queued test-mode ones, and runs it in the unloaded time", async () => {
    // A first run warms up (the tokenizer's tables, prepared statements); the second is the unloaded time.
    let unloaded = 0;
    for (const content of ["live question, warm-up", "live question, alone"]) {
      const [alone] = await queue(live, [content]);
      unloaded = await runUntilDone(alone!);
      await loop!.stop();
      loop = null;
    }

    const backlog = await queue(
      test,
      Array.from({ length: 30 }, (_, i) => `test question ${i}`),
    );
    const [behind] = await queue(live, ["live question, behind the backlog"]);
    asked.length = 0;
    const loaded = await runUntilDone(behind!);

    // Claimed in the first round, beside at most the test lane's own slots: not after the backlog.
    const at = asked.indexOf("live question, behind the backlog");
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThanOrEqual(2);
    // Its latency is the unloaded one, within a generous margin; FIFO over 8 slots would have run 30
    // half-second test replies ahead of it (4 rounds: about 1.5 s more).
    expect(loaded).toBeLessThan(unloaded + 2 * DELAY_MS);
    // Test-mode work was not stopped meanwhile: it ran in its own lane.
    expect(asked.some((a) => a.startsWith("test question"))).toBe(true);

    // The backlog finishes too.
    for (const until = Date.now() + 30_000; Date.now() < until;) {
      const rows = await db.db.select().from(operations).where(inArray(operations.id, backlog));
      if (rows.every((o) => o.status === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const rows = await db.db.select().from(operations).where(inArray(operations.id, backlog));
    expect(rows.map((o) => o.status)).toEqual(Array(30).fill("succeeded"));
    // The backlog alone takes 15 rounds of the test lane's 2 slots: 7.5 s of the slow model.
  }, 90_000);

  it("gives test-mode operations the offline model, never the live one it was given", async () => {
    const [id] = await queue(test, ["socks for the test lane"]);
    const external: LanguageModel = {
      model: "gpt-4o-mini",
      writerModel: "gpt-4o-mini",
      reply: async () => {
        throw new Error("a test-mode operation must never reach the live model");
      },
      write: async () => {
        throw new Error("a test-mode operation must never reach the live model");
      },
      analystModel: "gpt-4o-mini",
      analyze: async () => {
        throw new Error("a test-mode operation must never reach the live model");
      },
    };
    const settled = untilSettled(id!, 30_000);
    loop = startOperationLoop(db.db, { pollMs: 20, model: external });
    await settled;
    const [op] = await db.db.select().from(operations).where(eq(operations.id, id!));
    expect(op).toMatchObject({ status: "succeeded", livemode: false, chargedMinor: 0n });
    expect(op!.usage?.model).toBe("catalog-1");
  });
});
