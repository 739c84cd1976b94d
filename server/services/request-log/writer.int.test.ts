import { eq, like } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, requestLog } from "@/db/schema";
import { runRetention } from "@/server/jobs/retention";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { REQUEST_LOG_ARRAY_BYTES } from "./row-buffer";
import { flushRequestLog, RequestLogWriter, requestLogWriter, setRequestLogWriter } from "./writer";

// The request log's writer (issue 19 item 5): every public request becomes one row, written in batches
// off the request's path; the same flush stamps each key's last use; retention keeps 30 days.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let writer: RequestLogWriter;

/** A writer that flushes only when told (or at `flushRows`), installed as the process's. */
function install(opts: ConstructorParameters<typeof RequestLogWriter>[0] = {}): RequestLogWriter {
  writer = new RequestLogWriter({ intervalMs: 60_000, flushRows: 10_000, ...opts });
  setRequestLogWriter(writer);
  return writer;
}

const rowsOf = (requestId: string) => db.db.select().from(requestLog).where(eq(requestLog.requestId, requestId));

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterEach(() => setRequestLogWriter(undefined));
afterAll(async () => db.drop());

describe("request log rows", () => {
  it("hold every field of an answered request once flushed, and nothing before", async () => {
    install();
    const started = Date.now();
    const r = await call("GET", "/me", { key: t.key, ip: "127.0.0.1" });
    expect(r.status).toBe(200);
    const id = r.headers.get("x-request-id")!;
    expect(await rowsOf(id)).toEqual([]); // queued, not written on the request's path
    expect(writer.pending).toBe(1);
    await writer.flush();
    const [row] = await rowsOf(id);
    expect(row).toMatchObject({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      keyId: t.keyId,
      method: "GET",
      path: "/me",
      status: 200,
      problemCode: null,
      requestId: id,
      callerAddress: "127.0.0.1",
    });
    expect(row.apiKeyId).toEqual(expect.any(String));
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    expect(row.latencyMs).toBeLessThan(Date.now() - started + 1);
    expect(Math.abs(row.createdAt.getTime() - started)).toBeLessThan(5_000);
  });

  it("keep problem answers with their code; a refusal before a verified key belongs to no tenant", async () => {
    install();
    const noKey = await call("GET", "/me", { ip: "198.51.100.9" });
    const unknownPath = await call("GET", "/nothing-here", { key: t.key });
    const notAllowed = await call("PUT", "/cards", { key: t.key });
    const invalid = await call("GET", "/cards?limit=oops", { key: t.key });
    await writer.flush();
    const [a] = await rowsOf(noKey.headers.get("x-request-id")!);
    expect(a).toMatchObject({ status: 401, problemCode: "invalid_api_key", tenantId: null, integrationId: null });
    expect(a).toMatchObject({ keyId: null, apiKeyId: null, callerAddress: "198.51.100.9" });
    const [b] = await rowsOf(unknownPath.headers.get("x-request-id")!);
    expect(b).toMatchObject({ status: 404, problemCode: "not_found", path: "/nothing-here", tenantId: null });
    const [c] = await rowsOf(notAllowed.headers.get("x-request-id")!);
    expect(c).toMatchObject({ status: 405, problemCode: "method_not_allowed", method: "PUT" });
    const [d] = await rowsOf(invalid.headers.get("x-request-id")!);
    // Past authentication: the tenant's row; the query string is never stored.
    expect(d).toMatchObject({ status: 422, problemCode: "validation_failed", path: "/cards", tenantId: t.tenantId });
  });

  it("name the key's tenant when the key's secret matched but the key was refused (403 ip_not_allowed)", async () => {
    install();
    const far = await makeTenant(db.db, { key: { ipAllowlist: ["203.0.113.0/24"] } });
    const r = await call("GET", "/me", { key: far.key, ip: "198.51.100.1" });
    expect([r.status, r.body.code]).toEqual([403, "ip_not_allowed"]);
    // A forged secret for the same key id is not the key's holder: no tenant.
    const forged = far.key.replace(/_[A-Za-z0-9]{40}$/, `_${"A".repeat(40)}`);
    const f = await call("GET", "/me", { key: forged, ip: "198.51.100.1" });
    expect(f.status).toBe(401);
    await writer.flush();
    expect((await rowsOf(r.headers.get("x-request-id")!))[0]).toMatchObject({
      tenantId: far.tenantId,
      integrationId: far.integrationId,
      keyId: far.keyId,
      problemCode: "ip_not_allowed",
    });
    expect((await rowsOf(f.headers.get("x-request-id")!))[0]).toMatchObject({ tenantId: null, keyId: null });
    // A refused request is no use of the key.
    const [k] = await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, far.keyId));
    expect(k.lastUsedAt).toBeNull();
  });
});

describe("batching", () => {
  it("writes many requests with few INSERTs: one per flush", async () => {
    install();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await call("GET", "/me", { key: t.key })).headers.get("x-request-id")!);
    expect(writer.pending).toBe(40);
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: 40, inserts: 1, failedFlushes: 0 });
    for (const id of ids) expect(await rowsOf(id)).toHaveLength(1);
  });

  it("keeps every row exactly and in order past one statement's bytes and the buffer's first size", async () => {
    install();
    // About 300 bytes a row: three statements' worth.
    const n = Math.ceil((REQUEST_LOG_ARRAY_BYTES * 2.5) / 300);
    const at = Date.now();
    for (let i = 0; i < n; i++)
      writer.push({
        createdAt: new Date(at + i),
        tenantId: t.tenantId,
        livemode: true,
        integrationId: t.integrationId,
        apiKeyId: null,
        keyId: t.keyId,
        method: "GET",
        // Text JSON must escape, and characters of 2, 3 and 4 bytes in UTF-8.
        path: `/cards/"сапоги"\\€😀-${i}`,
        status: 200,
        problemCode: null,
        latencyMs: i / 10,
        requestId: `req_order_${i}`,
        callerAddress: "2001:db8::1",
      });
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: n, inserts: 3, failedFlushes: 0 });
    const rows = await db.db
      .select()
      .from(requestLog)
      .where(like(requestLog.requestId, "req_order_%"))
      .orderBy(requestLog.id);
    expect(rows.map((r) => r.requestId)).toEqual(Array.from({ length: n }, (_, i) => `req_order_${i}`));
    expect(rows[n - 1]).toMatchObject({
      path: `/cards/"сапоги"\\€😀-${n - 1}`,
      latencyMs: (n - 1) / 10,
      callerAddress: "2001:db8::1",
      createdAt: new Date(at + n - 1),
    });
    // The buffer starts again empty: the next flush writes only what came after.
    await call("GET", "/me", { key: t.key });
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: n + 1, inserts: 4 });
  });

  it("flushes by itself at flushRows rows and after the interval", async () => {
    install({ flushRows: 10, intervalMs: 200 });
    // Rows are pushed a batch at a time, each batch in one tick, so no timer can fire inside a batch
    // (requests sent one by one over HTTP let the 200 ms timer flush early whenever the machine was slow).
    const at = Date.now();
    let i = 0;
    const pushRows = (count: number) => {
      for (const end = i + count; i < end; i++)
        writer.push({
          createdAt: new Date(at + i),
          tenantId: t.tenantId,
          livemode: true,
          integrationId: t.integrationId,
          apiKeyId: null,
          keyId: t.keyId,
          method: "GET",
          path: "/me",
          status: 200,
          problemCode: null,
          latencyMs: 1,
          requestId: `req_batch_${i}`,
          callerAddress: "127.0.0.1",
        });
    };
    const written = async (rows: number) => {
      while (writer.stats.written < rows) await new Promise((r) => setTimeout(r, 5));
    };
    // The 10th row starts a flush by itself, twice; the last 5 wait for the timer.
    pushRows(10);
    await written(10);
    pushRows(10);
    await written(20);
    expect(writer.stats.inserts).toBe(2);
    pushRows(5);
    expect(writer.pending).toBe(5);
    await new Promise((r) => setTimeout(r, 600));
    expect(writer.pending).toBe(0);
    expect(writer.stats.written).toBe(25);
    expect(writer.stats.inserts).toBe(3);
  });

  it("never fails a request: a failed flush is logged and its rows dropped", async () => {
    install({ db: () => Promise.reject(new Error("database gone")) });
    const r = await call("GET", "/me", { key: t.key });
    expect(r.status).toBe(200);
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: 0, failedFlushes: 1 });
    expect(writer.pending).toBe(0);
    expect(await rowsOf(r.headers.get("x-request-id")!)).toEqual([]);
  });

  it("is bounded: past its capacity rows are dropped, not queued", async () => {
    install({ capacity: 3 });
    for (let i = 0; i < 5; i++) await call("GET", "/me", { key: t.key });
    expect(writer.pending).toBe(3);
    expect(writer.stats.dropped).toBe(2);
    await writer.flush();
    expect(writer.stats.written).toBe(3);
  });
});

describe("REQUEST_LOG=off (the bench's comparison)", () => {
  it("writes no row and stamps no key", async () => {
    setTestEnv({ REQUEST_LOG: "off" });
    try {
      setRequestLogWriter(undefined);
      expect(requestLogWriter()).toBeNull();
      const k = await makeTenant(db.db);
      const r = await call("GET", "/me", { key: k.key });
      expect(r.status).toBe(200);
      await flushRequestLog();
      expect(await rowsOf(r.headers.get("x-request-id")!)).toEqual([]);
      expect((await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, k.keyId)))[0].lastUsedAt).toBeNull();
    } finally {
      setTestEnv();
      setRequestLogWriter(undefined);
    }
    expect(requestLogWriter()).not.toBeNull();
  });
});

describe("last use of a key", () => {
  it("is stamped in the flush with the latest request's time and address, and never moves back", async () => {
    install();
    const k = await makeTenant(db.db, { key: { ipAllowlist: ["127.0.0.0/8"] } });
    const read = async () => (await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, k.keyId)))[0];
    await call("GET", "/me", { key: k.key, ip: "127.0.0.2" });
    await new Promise((r) => setTimeout(r, 5));
    await call("GET", "/me", { key: k.key, ip: "127.0.0.3" });
    expect((await read()).lastUsedAt).toBeNull();
    await writer.flush();
    const first = await read();
    expect(first.lastUsedAddress).toBe("127.0.0.3");
    const [latest] = await db.db
      .select({ at: requestLog.createdAt })
      .from(requestLog)
      .where(eq(requestLog.keyId, k.keyId))
      .orderBy(requestLog.createdAt)
      .offset(1);
    expect(first.lastUsedAt?.getTime()).toBe(latest.at.getTime());
    // A batch of an older request (another process's, late) does not move the stamp back.
    await writer.flush();
    const { writeRequestLog } = await import("./record");
    await writeRequestLog(db.db, [
      {
        createdAt: new Date(first.lastUsedAt!.getTime() - 60_000),
        tenantId: k.tenantId,
        livemode: true,
        integrationId: k.integrationId,
        apiKeyId: first.id,
        keyId: k.keyId,
        method: "GET",
        path: "/me",
        status: 200,
        problemCode: null,
        latencyMs: 1,
        requestId: "req_old",
        callerAddress: "127.0.0.9",
      },
    ]);
    expect(await read()).toMatchObject({ lastUsedAddress: "127.0.0.3", lastUsedAt: first.lastUsedAt });
  });
});

describe("retention", () => {
  it("deletes request-log rows older than 30 days and keeps younger ones", async () => {
    const DAY = 86_400_000;
    const base = {
      tenantId: t.tenantId,
      method: "GET",
      path: "/me",
      status: 200,
      latencyMs: 1,
    };
    await db.db.insert(requestLog).values([
      { ...base, createdAt: new Date(Date.now() - 31 * DAY), requestId: "req_ret_old" },
      { ...base, createdAt: new Date(Date.now() - 31 * DAY), requestId: "req_ret_old_anon", tenantId: null },
      { ...base, createdAt: new Date(Date.now() - 29 * DAY), requestId: "req_ret_young" },
    ]);
    const r = await runRetention(db.db);
    expect(r.requestLog).toBe(2);
    expect(await rowsOf("req_ret_old")).toEqual([]);
    expect(await rowsOf("req_ret_old_anon")).toEqual([]);
    expect(await rowsOf("req_ret_young")).toHaveLength(1);
  });
});
