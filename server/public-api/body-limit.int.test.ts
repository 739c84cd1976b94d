import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCard } from "@/server/services/cards/cards";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Spec "Limits": the 256 KB request body limit holds for every request, also on routes that take no body
// (issue 16 item 2). Before, only routes with a body schema read and measured it.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

const endless = () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled++;
      if (pulled > 10_000) return c.close(); // 640 MB: only reached if the whole stream were buffered
      c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
};

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await createCard(db.db, { tenantId: t.tenantId, via: "operator" }, { code: "keep-me", name: "Keep" });
});
afterAll(() => db.drop());

describe("the body limit on routes without a body", () => {
  it("refuses a streamed body over 256 KB with 413 before anything is done, reading no more than the limit", async () => {
    const big = endless();
    const r = await call("DELETE", "/cards/keep-me", { key: t.key, raw: big.stream });
    expect([r.status, r.body.code]).toEqual([413, "payload_too_large"]);
    expect(big.pulled()).toBeLessThan(20);
    expect((await call("GET", "/cards/keep-me", { key: t.key })).status).toBe(200);
  });

  it("refuses a declared Content-Length over 256 KB with 413", async () => {
    const r = await call("DELETE", "/cards/keep-me", { key: t.key, raw: "x".repeat(300 * 1024) });
    expect([r.status, r.body.code]).toEqual([413, "payload_too_large"]);
    expect((await call("GET", "/cards/keep-me", { key: t.key })).status).toBe(200);
  });

  it("still ignores a small body on such a route", async () => {
    const r = await call("DELETE", "/cards/keep-me", { key: t.key, raw: "{}" });
    expect(r.status).toBe(204);
  });
});
