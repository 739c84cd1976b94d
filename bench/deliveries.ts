import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { openDatabase, type Db } from "@/db/client";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { SCOPES } from "@/server/schemas/scopes";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { createIntegration } from "@/server/services/integrations/integrations";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { startHttpsReceiver } from "@/server/testing/https-receiver";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import type { FairnessFigures } from "./fairness";

/** Figures of the deliveries scenario of `npm run bench` (issue "Benchmark" 4). */
export interface DeliveryFigures {
  /**
   * Burst: deliveries per second of one worker process, from its start (the burst already queued) to the
   * last delivery; the events spread over 8 tenants' subscriptions (4 in flight a subscription at most).
   */
  burst: { events: number; seconds: number; perSecond: number };
  /** Steady arrival: enqueue-to-delivered latency, ms. */
  steady: { events: number; ratePerSec: number; p50Ms: number; p95Ms: number };
  /** Time from the top-up that lifts a suspension to the first deferred delivery arriving, ms. */
  topupToFirstDeliveryMs: number;
  /** The fairness row (bench/fairness.ts), set by bench/run.ts after this scenario. */
  fairness?: FairnessFigures;
}

/** Tenants (a subscription each) the burst is spread over. */
const BURST_TENANTS = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

async function enqueue(db: Db, tenantId: string, n: number): Promise<string[]> {
  return db.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await recordEventWithDeliveries(tx as unknown as Db, {
        tenantId,
        livemode: true,
        type: "lead.created",
        data: { lead_id: crypto.randomUUID(), version: 1 },
      });
      ids.push(...r.deliveryIds);
    }
    return ids;
  });
}

async function waitDelivered(db: Db, ids: string[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.state, "delivered")));
    if (n >= ids.length) return;
    if (Date.now() > until) throw new Error(`only ${n} of ${ids.length} deliveries arrived in ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * Measures webhook deliveries on a fresh tenant of the bench database: a worker process
 * (server/testing/worker-process.ts) delivers to a local HTTPS receiver in this process.
 * @param log progress lines
 */
export async function benchDeliveries(
  dbUrl: string,
  log: (m: string) => void,
  opts: { burst: number; steadyRate: number; steadySeconds: number },
): Promise<DeliveryFigures> {
  const receiver = await startHttpsReceiver();
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), "bench-ca-")), "ca.pem");
  writeFileSync(caFile, receiver.certPem);
  const d = await openDatabase({ url: dbUrl, poolSize: 8 });
  let worker: ReturnType<typeof spawn> | null = null;
  try {
    // The burst goes to BURST_TENANTS tenants, a subscription each (issue 75: at most 4 attempts of one
    // subscription are in flight, so one subscription's rate is 4 ÷ an attempt's time, whatever the worker
    // could do); the steady arrival and the top-up use the first tenant's subscription alone.
    const tenants: { id: string }[] = [];
    for (let k = 0; k < BURST_TENANTS; k++) {
      const t = await createTenant(d.db, { name: `Bench deliveries ${k + 1}`, mainDomain: "bench.example" });
      const integration = await createIntegration(d.db, t.id, {
        name: "Bench hooks",
        scopes: [...SCOPES],
        piiCountry: "RU",
        legalBasis: "contract",
      });
      await changeBalance(d.db, { tenantId: t.id, amountMinor: 1_000_000n, kind: "credit", actor: "system" });
      await d.db.insert(webhookSubscriptions).values({
        tenantId: t.id,
        integrationId: integration.id,
        url: receiver.url,
        events: ["lead.*"],
        secretEnc: sealSecret(newSigningSecret()),
      });
      tenants.push(t);
    }
    const tenant = tenants[0]!;

    // The burst is queued before the worker starts, so the figure is the worker's own rate (from the
    // moment it is ready to the last delivery), not the rate at which this process can enqueue.
    log(
      `deliveries: burst of ${opts.burst} events over ${BURST_TENANTS} tenants' subscriptions to a local HTTPS receiver, one worker process`,
    );
    const burstIds: string[] = [];
    for (let i = 0, k = 0; i < opts.burst; i += 250, k++)
      burstIds.push(...(await enqueue(d.db, tenants[k % BURST_TENANTS]!.id, Math.min(250, opts.burst - i))));
    const w = spawn(process.execPath, ["--import", "tsx", "server/testing/worker-process.ts", dbUrl, caFile], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    worker = w;
    await new Promise<void>((resolve, reject) => {
      w.stdout!.on("data", (b: Buffer) => b.toString().includes("ready") && resolve());
      w.once("exit", (c) => reject(new Error(`delivery worker exited with ${c}`)));
    });
    const ready = Date.now();
    await waitDelivered(d.db, burstIds, 300_000);
    const [span] = await d.db
      .select({ last: sql<string>`max(delivered_at)::text` })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, burstIds));
    const seconds = (Date.parse(span.last) - ready) / 1000;

    log(`deliveries: steady ${opts.steadyRate} events/s for ${opts.steadySeconds} s`);
    const steadyIds: string[] = [];
    const tick = 100;
    const perTick = Math.max(1, Math.round((opts.steadyRate * tick) / 1000));
    for (let t = 0; t < (opts.steadySeconds * 1000) / tick; t++) {
      const started = Date.now();
      steadyIds.push(...(await enqueue(d.db, tenant.id, perTick)));
      await sleep(Math.max(0, tick - (Date.now() - started)));
    }
    await waitDelivered(d.db, steadyIds, 120_000);
    const lat = await d.db
      .select({ ms: sql<number>`(extract(epoch from (delivered_at - created_at)) * 1000)::float8` })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.id, steadyIds), isNotNull(webhookDeliveries.deliveredAt)));
    const ms = lat.map((r) => Number(r.ms));

    log("deliveries: suspension, deferral, top-up");
    await changeBalance(d.db, { tenantId: tenant.id, amountMinor: -2_000_000n, kind: "debit", actor: "system" });
    const deferred = await enqueue(d.db, tenant.id, 20);
    for (let i = 0; ; i++) {
      const [{ n }] = await d.db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookDeliveries)
        .where(and(inArray(webhookDeliveries.id, deferred), eq(webhookDeliveries.error, "wallet_suspended")));
      if (n === deferred.length) break;
      if (i > 600) throw new Error("deliveries were not deferred while the wallet was negative");
      await sleep(50);
    }
    const before = receiver.requests.length;
    const toppedUp = Date.now();
    await changeBalance(d.db, { tenantId: tenant.id, amountMinor: 2_000_000n, kind: "topup", actor: "system" });
    while (receiver.requests.length === before) {
      if (Date.now() - toppedUp > 60_000) throw new Error("no deferred delivery within 60 s of the top-up");
      await sleep(5);
    }
    const topupToFirstDeliveryMs = receiver.requests[before].receivedAt.getTime() - toppedUp;
    return {
      burst: { events: opts.burst, seconds, perSecond: opts.burst / seconds },
      steady: {
        events: steadyIds.length,
        ratePerSec: opts.steadyRate,
        p50Ms: Math.round(pct(ms, 50)),
        p95Ms: Math.round(pct(ms, 95)),
      },
      topupToFirstDeliveryMs,
    };
  } finally {
    worker?.kill("SIGTERM");
    await d.close();
    await receiver.stop();
  }
}
