import { spawn } from "node:child_process";
import { inArray, sql } from "drizzle-orm";
import { openDatabase, type Db } from "@/db/client";
import { operations } from "@/db/schema";
import { SCOPES, type Scope } from "@/server/schemas/scopes";
import type { IntegrationActor } from "@/server/services/actor";
import { createCard } from "@/server/services/cards/cards";
import { createConversation } from "@/server/services/conversations/conversation-writes";
import { postCustomerMessage } from "@/server/services/conversations/customer-message";
import { setChannelAi } from "@/server/services/integrations/channel-settings";
import { createIntegration } from "@/server/services/integrations/integrations";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";

/** Figures of the paid-operations scenario of `npm run bench` (issue 17, 8), catalog model. */
export interface OperationFigures {
  /** Burst: operations completed per second by one worker process, from its start (burst queued) to the last. */
  burst: { operations: number; seconds: number; perSecond: number };
  /** Steady arrival with the worker running: create-to-completed latency, ms. */
  steady: { operations: number; ratePerSec: number; p50Ms: number; p95Ms: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

/** Queues `n` AI replies (one customer message each, in conversations of `convs`) through the service, as the route does. */
async function queue(db: Db, actor: IntegrationActor, convs: string[], n: number, tag: string): Promise<string[]> {
  const messageIds: string[] = [];
  for (let i = 0; i < n; i++)
    messageIds.push(
      await db.transaction((tx) =>
        postCustomerMessage(
          tx as unknown as Db,
          actor,
          convs[i % convs.length]!,
          { content: `${tag} ${i}: warm socks or a jacket?` },
          { model: "catalog-1", paidConcurrency: 1_000_000 },
        ),
      ),
    );
  const rows = await db.select({ id: operations.id }).from(operations).where(inArray(operations.messageId, messageIds));
  return rows.map((r) => r.id);
}

async function waitDone(db: Db, ids: string[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(operations)
      .where(sql`${inArray(operations.id, ids)} and status in ('succeeded', 'failed', 'canceled')`);
    if (n >= ids.length) return;
    if (Date.now() > until) throw new Error(`only ${n} of ${ids.length} operations finished in ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * Measures paid operations on a fresh tenant of the bench database: AI replies with the catalog model run by
 * one operations worker process (server/testing/operation-worker-process.ts).
 */
export async function benchOperations(
  dbUrl: string,
  log: (m: string) => void,
  opts: { burst: number; steadyRate: number; steadySeconds: number },
): Promise<OperationFigures> {
  const d = await openDatabase({ url: dbUrl, poolSize: 8 });
  let worker: ReturnType<typeof spawn> | null = null;
  try {
    const tenant = await createTenant(d.db, { name: "Bench operations", mainDomain: "bench.example" });
    const integration = await createIntegration(d.db, tenant.id, {
      name: "Bench AI",
      scopes: [...SCOPES],
      piiCountry: "RU",
      legalBasis: "contract",
    });
    await changeBalance(d.db, { tenantId: tenant.id, amountMinor: 100_000_000n, kind: "credit", actor: "system" });
    await setChannelAi(d.db, integration.id, { aiDailyLimit: 10_000 });
    const op = { tenantId: tenant.id, via: "operator" as const };
    for (let i = 0; i < 50; i++)
      await createCard(d.db, op, {
        code: `card-${i}`,
        name: `${i % 2 ? "Wool socks" : "Rain jacket"} ${i}`,
        description: "bench",
      });
    const actor: IntegrationActor = {
      via: "api",
      tenantId: tenant.id,
      integrationId: integration.id,
      keyId: "bench",
      keyMode: "live",
      livemode: true,
      scopes: [...SCOPES] as Scope[],
      cell: "ru",
    };
    const convs: string[] = [];
    for (let i = 0; i < 20; i++)
      convs.push((await createConversation(d.db, actor, { external_customer_id: `bench-${i}` })).conversation.id);

    log(`operations: burst of ${opts.burst} AI replies (catalog model), one worker process`);
    const burstIds = await queue(d.db, actor, convs, opts.burst, "burst");
    const w = spawn(
      process.execPath,
      ["--import", "tsx", "server/testing/operation-worker-process.ts", dbUrl, "60000", "0"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    worker = w;
    await new Promise<void>((resolve, reject) => {
      w.stdout!.on("data", (b: Buffer) => b.toString().includes("ready") && resolve());
      w.once("exit", (c) => reject(new Error(`operations worker exited with ${c}`)));
    });
    const ready = Date.now();
    await waitDone(d.db, burstIds, 300_000);
    const [span] = await d.db
      .select({ last: sql<string>`max(completed_at)::text` })
      .from(operations)
      .where(inArray(operations.id, burstIds));
    const seconds = (Date.parse(span.last) - ready) / 1000;

    log(`operations: steady ${opts.steadyRate} AI replies/s for ${opts.steadySeconds} s`);
    const steadyIds: string[] = [];
    const tick = 100;
    const perTick = Math.max(1, Math.round((opts.steadyRate * tick) / 1000));
    for (let t = 0; t < (opts.steadySeconds * 1000) / tick; t++) {
      const started = Date.now();
      steadyIds.push(...(await queue(d.db, actor, convs, perTick, `steady ${t}`)));
      await sleep(Math.max(0, tick - (Date.now() - started)));
    }
    await waitDone(d.db, steadyIds, 120_000);
    const lat = await d.db
      .select({ ms: sql<number>`(extract(epoch from (completed_at - created_at)) * 1000)::float8` })
      .from(operations)
      .where(inArray(operations.id, steadyIds));
    const ms = lat.map((r) => Number(r.ms));
    return {
      burst: { operations: burstIds.length, seconds, perSecond: burstIds.length / seconds },
      steady: {
        operations: steadyIds.length,
        ratePerSec: opts.steadyRate,
        p50Ms: Math.round(pct(ms, 50)),
        p95Ms: Math.round(pct(ms, 95)),
      },
    };
  } finally {
    worker?.kill("SIGTERM");
    await d.close();
  }
}
