import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { openDatabase, type Db } from "@/db/client";
import { events, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { SCOPES } from "@/server/schemas/scopes";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { createIntegration } from "@/server/services/integrations/integrations";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { cpuSince, cpuSnapshot } from "./process-stats";

/** Figures of the fairness row (issue 75 item 5): tenant B's delivery latency without and behind tenant A's backlog. */
export interface FairnessFigures {
  /** Worker processes delivering (the local driver, 16 attempts each). */
  workers: number;
  /** Tenant A's due events, all to one subscription whose receiver answers in `slowMs`. */
  backlog: number;
  slowMs: number;
  /** Tenant B's events a phase, at `ratePerSec`, to a receiver answering at once. */
  events: number;
  ratePerSec: number;
  /** Event created → B's receiver got it, ms: with no backlog, then behind A's. */
  /** With the CPU used meanwhile, % of one core: PostgreSQL's (the database's backends and background processes), this process's tree's (the workers, the receivers, B's writes). */
  baseline: PhaseFigures;
  behindBacklog: PhaseFigures;
  /** Most of A's attempts seen in flight (leased) during B's phase, and A's deliveries made by its end. */
  backlogInFlightMax: number;
  backlogDelivered: number;
}

/** Tenant B's p95 behind the backlog at most, ms (issue 75 item 5: as with no backlog, ≤ 2 s). */
export const FAIRNESS_TARGET_MS = 2_000;

/** The row's figures in one line, for the bench's log and results.md. */
export function fairnessLine(f: FairnessFigures): string {
  return `tenant B, ${f.events} events at ${f.ratePerSec}/s, ${f.workers} worker processes: event created → received p50 ${f.baseline.p50Ms} ms, p95 ${f.baseline.p95Ms} ms alone (PostgreSQL CPU ${f.baseline.postgresCpuPct} %, workers and bench ${f.baseline.workersCpuPct} %); p50 ${f.behindBacklog.p50Ms} ms, p95 ${f.behindBacklog.p95Ms} ms (PostgreSQL ${f.behindBacklog.postgresCpuPct} %, workers and bench ${f.behindBacklog.workersCpuPct} %) behind tenant A's ${f.backlog.toLocaleString("en")} events to a receiver answering in ${f.slowMs} ms (target p95 ≤ ${FAIRNESS_TARGET_MS} ms; A's attempts in flight at most ${f.backlogInFlightMax}, ${f.backlogDelivered} of A's delivered meanwhile)`;
}

/** One phase of tenant B's events: its latency percentiles and the CPU it took. */
export interface PhaseFigures {
  p50Ms: number;
  p95Ms: number;
  postgresCpuPct: number;
  workersCpuPct: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

/** SIGTERM, then SIGKILL when it has not exited within 8 s. */
async function stopWorker(w: ChildProcess): Promise<void> {
  if (w.exitCode !== null || w.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
  w.kill("SIGTERM");
  const timer = setTimeout(() => w.kill("SIGKILL"), 8_000);
  await exited;
  clearTimeout(timer);
}

/** A tenant with money in its wallet and one subscription to `url`. */
async function tenantWithHook(db: Db, name: string, url: string) {
  const tenant = await createTenant(db, { name, mainDomain: "bench.example" });
  const integration = await createIntegration(db, tenant.id, {
    name: `${name} hooks`,
    scopes: [...SCOPES],
    piiCountry: "RU",
    legalBasis: "contract",
  });
  await changeBalance(db, { tenantId: tenant.id, amountMinor: 1_000_000n, kind: "credit", actor: "system" });
  const [sub] = await db
    .insert(webhookSubscriptions)
    .values({
      tenantId: tenant.id,
      integrationId: integration.id,
      url,
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  return { tenantId: tenant.id, subscriptionId: sub!.id };
}

/**
 * B's phase: `events` events at `ratePerSec` (enqueued every 100 ms, as the deliveries row does), then the
 * latency of each from its `created_at` to its arrival at `receiver`, ms.
 */
async function steadyPhase(
  db: Db,
  tenantId: string,
  receiver: HttpsReceiver,
  opts: { events: number; ratePerSec: number },
  during: () => Promise<void> = async () => {},
): Promise<number[]> {
  const from = receiver.requests.length;
  const ids: string[] = [];
  const tick = 100;
  const perTick = Math.max(1, Math.round((opts.ratePerSec * tick) / 1000));
  while (ids.length < opts.events) {
    const started = Date.now();
    for (let i = 0; i < perTick && ids.length < opts.events; i++)
      ids.push(
        (
          await recordEventWithDeliveries(db, {
            tenantId,
            livemode: true,
            type: "lead.created",
            data: { lead_id: crypto.randomUUID(), version: 1 },
          })
        ).eventId,
      );
    await during();
    await sleep(Math.max(0, tick - (Date.now() - started)));
  }
  const until = Date.now() + 120_000;
  while (receiver.requests.length - from < ids.length) {
    if (Date.now() > until) throw new Error(`only ${receiver.requests.length - from} of ${ids.length} arrived`);
    await during();
    await sleep(50);
  }
  const created = new Map(
    (
      await db
        .select({ id: events.id, ms: sql<string>`(extract(epoch from ${events.createdAt}) * 1000)::bigint::text` })
        .from(events)
        .where(inArray(events.id, ids))
    ).map((r) => [r.id, Number(r.ms)]),
  );
  return receiver.requests
    .slice(from)
    .filter((r) => created.has(r.headers["service-event-id"]!))
    .map((r) => r.receivedAt.getTime() - created.get(r.headers["service-event-id"]!)!);
}

/**
 * The fairness row (issue 75 item 5, docs/benchmark.md): on the PostgreSQL database `dbUrl`, `workers`
 * worker processes (server/testing/worker-process.ts: `npm run worker`'s local driver) deliver to two local
 * HTTPS receivers in this process. Tenant B sends `events` events at `ratePerSec` to a receiver answering at
 * once, first alone (the baseline), then after tenant A queued `backlog` events to a receiver answering in
 * `slowMs` (A's events are inserted with their deliveries in one statement each, as fan-out writes them,
 * so that queueing 50,000 takes seconds). Both tenants' subscriptions, and so their deliveries, are deleted
 * at the end.
 * @param log progress lines
 */
export async function benchFairness(
  dbUrl: string,
  log: (m: string) => void,
  opts: { workers: number; backlog: number; slowMs: number; events: number; ratePerSec: number },
): Promise<FairnessFigures> {
  const fast = await startHttpsReceiver();
  const slow = await startHttpsReceiver();
  slow.respond({ kind: "slow", delayMs: opts.slowMs, status: 200 });
  // Both receivers serve the process's one self-signed certificate.
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), "bench-ca-")), "ca.pem");
  writeFileSync(caFile, fast.certPem);
  const d = await openDatabase({ url: dbUrl, poolSize: 4 });
  const dbName = new URL(dbUrl).pathname.slice(1);
  const workers: ChildProcess[] = [];
  const subs: string[] = [];
  try {
    const a = await tenantWithHook(d.db, "Bench fairness A", slow.url);
    const b = await tenantWithHook(d.db, "Bench fairness B", fast.url);
    subs.push(a.subscriptionId, b.subscriptionId);
    for (let i = 0; i < opts.workers; i++) {
      const w = spawn(process.execPath, ["--import", "tsx", "server/testing/worker-process.ts", dbUrl, caFile], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      workers.push(w);
      await new Promise<void>((resolve, reject) => {
        w.stdout!.on("data", (buf: Buffer) => buf.toString().includes("ready") && resolve());
        w.once("exit", (c) => reject(new Error(`delivery worker exited with ${c}`)));
      });
    }
    const phase = { events: opts.events, ratePerSec: opts.ratePerSec };
    log(`fairness: tenant B alone, ${opts.events} events at ${opts.ratePerSec}/s, ${opts.workers} worker processes`);
    const measured = async (during?: () => Promise<void>): Promise<PhaseFigures> => {
      const before = cpuSnapshot(process.pid, dbName);
      const ms = await steadyPhase(d.db, b.tenantId, fast, phase, during);
      const cpu = cpuSince(before, cpuSnapshot(process.pid, dbName));
      return {
        p50Ms: Math.round(pct(ms, 50)),
        p95Ms: Math.round(pct(ms, 95)),
        postgresCpuPct: Math.round(cpu.postgresPct),
        workersCpuPct: Math.round(cpu.appPct),
      };
    };
    const baseline = await measured();

    log(`fairness: tenant A queues ${opts.backlog} events behind a receiver answering in ${opts.slowMs} ms`);
    await d.db.execute(sql`
      with e as (
        insert into events (tenant_id, livemode, type, data)
        select ${a.tenantId}, true, 'lead.created', jsonb_build_object('lead_id', gen_random_uuid(), 'version', 1)
        from generate_series(1, ${opts.backlog})
        returning id, created_at
      )
      insert into webhook_deliveries (tenant_id, livemode, subscription_id, event_id, event_type, next_attempt_at, created_at)
      select ${a.tenantId}, true, ${a.subscriptionId}, e.id, 'lead.created', e.created_at, e.created_at from e`);
    await d.db.execute(sql`analyze webhook_deliveries`);
    while (slow.requests.length < 4) await sleep(50);

    log(`fairness: tenant B again, behind A's backlog`);
    let inFlightMax = 0;
    const sample = async () => {
      const [{ n }] = await d.db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookDeliveries)
        .where(
          and(eq(webhookDeliveries.subscriptionId, a.subscriptionId), gt(webhookDeliveries.lockedUntil, sql`now()`)),
        );
      inFlightMax = Math.max(inFlightMax, n);
    };
    const behindBacklog = await measured(sample);
    return {
      workers: opts.workers,
      backlog: opts.backlog,
      slowMs: opts.slowMs,
      events: opts.events,
      ratePerSec: opts.ratePerSec,
      baseline,
      behindBacklog,
      backlogInFlightMax: inFlightMax,
      backlogDelivered: slow.requests.length,
    };
  } finally {
    // Stopped and waited for (a worker still finishing an attempt to the stopped slow receiver gets SIGKILL).
    await Promise.all(workers.map((w) => stopWorker(w)));
    // The backlog must not outlive the row: later scenarios' workers would claim it.
    if (subs.length) await d.db.delete(webhookSubscriptions).where(inArray(webhookSubscriptions.id, subs));
    await d.close();
    await Promise.all([fast.stop(), slow.stop()]);
  }
}
