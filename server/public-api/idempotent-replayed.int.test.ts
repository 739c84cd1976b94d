import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLog } from "@/db/schema";
import { flushRequestLog } from "@/server/services/request-log/writer";
import { createCaller } from "@/server/trpc/root";
import { call, type ApiAnswer } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Issue 75 item 6: an answer replayed from an idempotency record carries `Idempotent-Replayed: true`
// (Stripe's header); a first answer, a conflict and a request without a key do not. The request log marks
// the replayed row, and the console's request-log procedure returns it.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const replayed = (r: ApiAnswer) => r.headers.get("idempotent-replayed");
const card = (code: string) => ({ code, name: "Wool socks", page_url: "/catalog/socks" });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

describe("Idempotent-Replayed", () => {
  const ids: Record<string, string> = {};

  it("is absent on the first answer and `true` on its replay, which answers the same", async () => {
    const key = crypto.randomUUID();
    const first = await call("POST", "/cards", { key: t.key, json: card("socks"), idempotencyKey: key });
    const again = await call("POST", "/cards", { key: t.key, json: card("socks"), idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeNull();
    expect([again.status, replayed(again)]).toEqual([201, "true"]);
    expect(again.body).toEqual(first.body);
    ids.first = first.headers.get("x-request-id")!;
    ids.again = again.headers.get("x-request-id")!;

    // A third time is a replay too; the same key with another body is a conflict, not a replay.
    expect(replayed(await call("POST", "/cards", { key: t.key, json: card("socks"), idempotencyKey: key }))).toBe(
      "true",
    );
    const conflict = await call("POST", "/cards", { key: t.key, json: card("other"), idempotencyKey: key });
    expect([conflict.status, conflict.body.code, replayed(conflict)]).toEqual([409, "idempotency_conflict", null]);
    ids.conflict = conflict.headers.get("x-request-id")!;
  });

  it("marks replays of routes where the key is optional, and never a request without a key", async () => {
    const key = crypto.randomUUID();
    const patch = () => call("PATCH", "/cards/socks", { key: t.key, json: { badge: "Warm" }, idempotencyKey: key });
    const first = await patch();
    const again = await patch();
    expect([first.status, replayed(first)]).toEqual([200, null]);
    expect([again.status, replayed(again)]).toEqual([200, "true"]);
    expect(again.body).toEqual(first.body);
    for (let i = 0; i < 2; i++) {
      const plain = await call("PATCH", "/cards/socks", { key: t.key, json: { badge: "Warm" } });
      expect([plain.status, replayed(plain)]).toEqual([200, null]);
    }
    const read = await call("GET", "/cards/socks", { key: t.key, headers: { "idempotency-key": key } });
    expect([read.status, replayed(read)]).toEqual([200, null]); // GET ignores the key
  });

  it("writes the request-log row with replayed, which the console's procedure returns", async () => {
    await flushRequestLog();
    const rows = await db.db
      .select({ requestId: requestLog.requestId, replayed: requestLog.replayed })
      .from(requestLog)
      .where(inArray(requestLog.requestId, [ids.first!, ids.again!, ids.conflict!]));
    expect(Object.fromEntries(rows.map((r) => [r.requestId, r.replayed]))).toEqual({
      [ids.first!]: false,
      [ids.again!]: true,
      [ids.conflict!]: false,
    });

    const staff = { id: await makeStaff(db.db, t.tenantId, []), email: "m@x.example", name: "M" };
    const page = await createCaller({ db: db.db, staff }).requestLog.list({
      tenantId: t.tenantId,
      filters: { path: "/cards" },
      limit: 200,
    });
    const byId = new Map(page.rows.map((r) => [r.requestId, r]));
    expect(byId.get(ids.first!)?.replayed).toBe(false);
    expect(byId.get(ids.again!)).toMatchObject({ replayed: true, method: "POST", path: "/cards", status: 201 });
    expect(byId.get(ids.conflict!)?.replayed).toBe(false);
    expect(page.rows.filter((r) => r.replayed)).toHaveLength(3); // the two POST replays and the PATCH replay
  });
});
