import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLog } from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import type { StaffActor } from "../actor";
import { requestLogPage } from "./request-log-page";
import { flushRequestLog } from "./writer";

// Issue 69: every request-log row carries the data mode its key worked in, and the console's request log
// lists only the rows of the console's mode ("Test mode" on: the sandbox's requests; off: live ones).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let s: SandboxTenantFixture;
/** Request ids by what was asked. */
const ids: Record<string, string> = {};

const staff = (livemode?: boolean): StaffActor => ({
  via: "console",
  tenantId: s.tenantId,
  staffUserId: "staff-1",
  rights: [],
  ...(livemode === undefined ? {} : { livemode }),
});

beforeAll(async () => {
  db = await openTestDatabase();
  s = await makeEmptySandboxTenant(db.db);
  const noPreview = await makeTenant(db.db, { key: { mode: "test" } });
  const go = async (name: string, key: string, status: number, ip?: string, path = "/articles") => {
    const r = await call("GET", path, { key, ip, validate: false });
    expect(r.status).toBe(status);
    ids[name] = r.headers.get("x-request-id")!;
  };
  await go("live", s.key, 200);
  await go("sandbox", s.testKey, 200);
  await go("sandboxBadQuery", s.testKey, 422, undefined, "/articles?limit=0");
  // Refused after the key's secret matched: attributed to the key's tenant, and to the key's mode.
  await go("liveRefused", s.key, 403, "10.9.9.9");
  await go("sandboxRefused", s.testKey, 403, "10.9.9.9");
  // A test key without the preview works in live data, as before test mode.
  await go("testKeyLive", noPreview.key, 200);
  await flushRequestLog();
});
afterAll(async () => db.drop());

describe("request-log rows", () => {
  it("carry the key's data mode, also when a verified key was refused", async () => {
    const rows = await db.db
      .select({ requestId: requestLog.requestId, tenantId: requestLog.tenantId, livemode: requestLog.livemode })
      .from(requestLog)
      .where(inArray(requestLog.requestId, Object.values(ids)));
    const mode = Object.fromEntries(rows.map((r) => [r.requestId, r.livemode]));
    expect(mode).toEqual({
      [ids.live!]: true,
      [ids.sandbox!]: false,
      [ids.sandboxBadQuery!]: false,
      [ids.liveRefused!]: true,
      [ids.sandboxRefused!]: false,
      [ids.testKeyLive!]: true,
    });
    expect(rows.find((r) => r.requestId === ids.sandboxRefused)?.tenantId).toBe(s.tenantId);
  });
});

describe("the console's request log", () => {
  it("lists only live requests outside Test mode, and only the sandbox's in Test mode", async () => {
    const listed = async (actor: StaffActor) =>
      (await requestLogPage(db.db, actor, {}, 50, null)).rows.map((r) => r.requestId).sort();
    const live = [ids.live!, ids.liveRefused!].sort();
    const sandbox = [ids.sandbox!, ids.sandboxBadQuery!, ids.sandboxRefused!].sort();
    expect(await listed(staff())).toEqual(live);
    expect(await listed(staff(true))).toEqual(live);
    expect(await listed(staff(false))).toEqual(sandbox);
    // A filter by request id of the other mode finds nothing.
    const other = await requestLogPage(db.db, staff(false), { requestId: ids.live! }, 50, null);
    expect(other.rows).toEqual([]);
  });

  it("pages the sandbox's requests by keyset without live rows in between", async () => {
    const seen: string[] = [];
    let cursor: { createdAt: string; id: number } | null = null;
    do {
      const p: Awaited<ReturnType<typeof requestLogPage>> = await requestLogPage(db.db, staff(false), {}, 1, cursor);
      seen.push(...p.rows.map((r) => r.requestId));
      cursor = p.next;
    } while (cursor && seen.length < 10);
    expect(seen.sort()).toEqual([ids.sandbox!, ids.sandboxBadQuery!, ids.sandboxRefused!].sort());
  });
});
