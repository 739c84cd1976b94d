import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { idempotencyRecords, products } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { call, fetchChecked, warmUpValidators } from "@/server/testing/api-client";
import { killProcess, startApiProcess } from "@/server/testing/child-process";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { RequestMismatch } from "@/server/testing/request-validator";
import { ResponseMismatch } from "@/server/testing/response-validator";
import { openTestDatabase } from "@/server/testing/test-db";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { IDEMPOTENCY_LOCK_MS } from "@/server/services/idempotency/idempotency";

// The app process killed mid-request (issue "Reliability", faults): writes are transactions, so a
// SIGKILL leaves either the whole card with its completed idempotency record, or no card at all; and a
// retry with the same Idempotency-Key after the restart ends with exactly one card per key.
// Needs PostgreSQL: the killed process and the test share the database.

const pg = Boolean(process.env.DATABASE_URL);
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const N = 120;
const body = (i: number) => ({
  code: `crash-${i}`,
  name: `Crash ${i}`,
  description: "d".repeat(400),
  buttons: [{ label: "Buy", url: `/cart?i=${i}` }],
});

beforeAll(async () => {
  if (!pg) return;
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  // The burst and its retries are far above the starting write limit; this test is about crashes.
  await setLimitOverride(db.db, { tenantId: t.tenantId }, { writePerMin: 10_000 });
  await setLimitOverride(db.db, { keyId: t.keyId }, { writePerMin: 10_000 });
  // Schemas compiled now: compiling on the first answer of the burst would hold this process's event
  // loop while the child answers everything, and the kill would come after the last request.
  warmUpValidators();
});
afterAll(async () => db?.drop());

it.runIf(pg)(
  "leaves no half-written card after a SIGKILL mid-burst, and a retry with the same keys makes each card once",
  { timeout: 90_000 },
  async () => {
    const { child, port } = await startApiProcess(db.url!);
    // The kill comes as soon as the first cards are in: at the fifth answer, or when this process sees five
    // cards in the database, whichever is first. Polling alone could come too late once the child answered
    // a burst faster than the poll's round (POST /cards makes one round trip for a new key since issue 22).
    let answered = 0;
    let firstCardsIn!: () => void;
    const fiveAnswers = new Promise<void>((resolve) => (firstCardsIn = resolve));
    try {
      const sent = Array.from({ length: N }, (_, i) =>
        fetchChecked(`http://127.0.0.1:${port}/api/public/v1/cards`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${t.key}`,
            "content-type": "application/json",
            "idempotency-key": `crash-key-${i}`,
          },
          body: JSON.stringify(body(i)),
        }).then(
          (r) => {
            if (++answered === 5) firstCardsIn();
            return r.status;
          },
          // A request cut by the kill is expected; an answer outside the document is not.
          (err: unknown) =>
            err instanceof ResponseMismatch || err instanceof RequestMismatch ? Promise.reject(err) : "cut",
        ),
      );
      // The rest are then queued, running or committing.
      const fiveRows = (async () => {
        for (let i = 0; i < 200 && answered < 5; i++) {
          const rows = await db.db.select({ id: products.id }).from(products).where(eq(products.tenantId, t.tenantId));
          if (rows.length >= 5) return;
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      await Promise.race([fiveAnswers, fiveRows]);
      child.kill("SIGKILL");
      const statuses = await Promise.all(sent);
      expect(statuses).toContain("cut");
    } finally {
      await killProcess(child);
    }

    const made = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), like(products.code, "crash-%")));
    const records = await db.db.select().from(idempotencyRecords).where(eq(idempotencyRecords.tenantId, t.tenantId));
    const completed = records.filter((r) => r.resourceId !== null);
    // Every card is whole and has its completed record; no completed record points at nothing.
    expect(made.length).toBe(completed.length);
    for (const p of made) {
      const i = Number(p.code!.slice("crash-".length));
      expect(p).toMatchObject({ name: `Crash ${i}`, description: "d".repeat(400) });
      expect(p.buttons).toEqual([{ label: "Buy", url: `/cart?i=${i}` }]);
      expect(completed.some((r) => r.resourceId === p.id)).toBe(true);
    }
    expect(made.length).toBeLessThan(N);

    // After the restart (here: this process), once the dead requests' key locks lapse, every retry succeeds.
    const later = Date.now() + IDEMPOTENCY_LOCK_MS + 1000;
    setClock(() => later);
    try {
      for (let i = 0; i < N; i++) {
        const r = await call("POST", "/cards", { key: t.key, json: body(i), idempotencyKey: `crash-key-${i}` });
        expect(r.status, `card ${i}`).toBe(201);
        expect(r.body.code).toBe(`crash-${i}`);
      }
    } finally {
      setClock(undefined);
    }
    const after = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), like(products.code, "crash-%")));
    expect(after).toHaveLength(N);
  },
);
