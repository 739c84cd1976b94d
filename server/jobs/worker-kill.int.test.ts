import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { killProcess, startTsxProcess } from "@/server/testing/child-process";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

// A worker process killed mid-delivery (issues "Webhooks" 7 and "Reliability" 3): deliveries it had
// claimed and was sending stay pending under its lease; once the lease runs out a restarted worker
// sends them, so every event reaches the receiver at least once (the ones in flight at the kill may
// arrive twice, which is why receivers skip a repeated Service-Event-Id).
// Needs PostgreSQL: the worker processes and the test share the database.

const pg = Boolean(process.env.DATABASE_URL);
const N = 24;
const LEASE_MS = 2_000;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let rx: HttpsReceiver;
let dir: string;
let caFile: string;

beforeAll(async () => {
  if (!pg) return;
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  t = await makeTenant(db.db);
  rx = await startHttpsReceiver();
  dir = mkdtempSync(path.join(tmpdir(), "worker-kill-"));
  caFile = path.join(dir, "ca.pem");
  writeFileSync(caFile, rx.certPem);
});
afterAll(async () => {
  if (!pg) return;
  await rx.stop();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

const startWorker = () =>
  startTsxProcess("server/testing/worker-process.ts", [db.url!, caFile, String(LEASE_MS)], "ready");
const kill = killProcess;

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it.runIf(pg)(
  "a worker killed mid-delivery: every event is delivered at least once after a restart",
  { timeout: 90_000 },
  async () => {
    // Three subscriptions: at most 4 attempts of one are in flight (issue 75 item 5), and the kill must
    // find 8 open.
    const subs = await db.db
      .insert(webhookSubscriptions)
      .values(
        [0, 1, 2].map(() => ({
          tenantId: t.tenantId,
          integrationId: t.integrationId,
          url: rx.url,
          events: ["lead.*"],
          status: "active",
          secretEnc: sealSecret(newSigningSecret()),
        })),
      )
      .returning({ id: webhookSubscriptions.id });
    const ofSubs = inArray(
      webhookDeliveries.subscriptionId,
      subs.map((s) => s.id),
    );
    // The receiver holds each request 5 s: the first worker is killed while its POSTs are open.
    rx.respond({ kind: "slow", delayMs: 5_000, status: 200 });
    const eventIds: string[] = [];
    for (let i = 0; i < N; i++) {
      const r = await recordEventWithDeliveries(
        db.db,
        {
          tenantId: t.tenantId,
          livemode: true,
          type: "lead.updated",
          data: { lead_id: crypto.randomUUID(), version: i + 1 },
        },
        { onlySubscriptionId: subs[i % subs.length]!.id },
      );
      eventIds.push(r.eventId);
    }

    const first = await startWorker();
    let second: ChildProcess | null = null;
    try {
      await waitFor(async () => rx.requests.length >= 8, 20_000);
      await kill(first);
      const inFlight = rx.requests.map((r) => r.headers["service-event-id"]);

      // What the kill left: claimed rows still pending under the dead worker's lease, nothing recorded.
      const d = webhookDeliveries;
      const leased = await db.db
        .select({ id: d.id, attempt: d.attempt, state: d.state })
        .from(d)
        .where(and(ofSubs, isNotNull(d.lockedUntil)));
      expect(leased.length).toBeGreaterThanOrEqual(inFlight.length);
      expect(leased.every((r) => r.state === "pending" && r.attempt === 0)).toBe(true);
      expect(
        await db.db
          .select({ id: d.id })
          .from(d)
          .where(and(ofSubs, eq(d.state, "delivered"))),
      ).toHaveLength(0);

      rx.respond({ kind: "status", status: 200 });
      second = await startWorker();
      await waitFor(
        async () =>
          (
            await db.db
              .select({ id: d.id })
              .from(d)
              .where(and(ofSubs, eq(d.state, "delivered")))
          ).length === N,
        30_000,
      );

      const received = new Set(rx.requests.map((r) => r.headers["service-event-id"]));
      for (const id of eventIds) expect(received.has(id)).toBe(true);
      // The events in flight at the kill were sent again by the second worker: at least once, not exactly once.
      const repeated = inFlight.filter(
        (id) => rx.requests.filter((r) => r.headers["service-event-id"] === id).length >= 2,
      );
      expect(repeated.length).toBe(inFlight.length);
      const rows = await db.db.select({ attempt: d.attempt, lockedUntil: d.lockedUntil }).from(d).where(ofSubs);
      expect(rows.every((r) => r.attempt === 1 && r.lockedUntil === null)).toBe(true);
    } finally {
      await kill(first);
      if (second) await kill(second);
    }
  },
);
