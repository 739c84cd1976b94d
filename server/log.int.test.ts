import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createStaffMember } from "@/server/services/tenants/staff";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createLogger, log, setLogger } from "./log";

// No key, secret, password or personal field may reach a log line, whatever the request does.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const lines: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  setLogger(
    createLogger(
      "trace",
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    ),
  );
});
afterAll(async () => {
  setLogger(undefined);
  await db.drop();
});

it("keeps keys, secrets, passwords and personal data out of the logs", async () => {
  const secretPart = t.key.split("_").pop()!;
  const password = "Sup3r-secret-pass";
  await createStaffMember(db.db, {
    tenantId: t.tenantId,
    email: "leak.check@example.com",
    password,
    name: "Leak Check",
  });
  await call("GET", "/me", { key: t.key });
  await call("GET", "/me", { key: t.key.replace(/.$/, "x") });
  await call("GET", "/me", {
    headers: { authorization: `Basic ${Buffer.from(`user:${password}`).toString("base64")}` },
  });
  await call("POST", "/cards", {
    key: t.key,
    json: { code: "BAD CODE", name: "x", description: "call +7 900 123 45 67 or mail ivan@example.com" },
    idempotencyKey: crypto.randomUUID(),
  });
  await call("POST", "/cards", {
    key: t.key,
    raw: `{"password":"${password}"`,
    headers: { "content-type": "application/json" },
    idempotencyKey: crypto.randomUUID(),
  });
  log().info(
    {
      key: t.key,
      authorization: `Bearer ${t.key}`,
      user: { email: "ivan@example.com", phone: "+79001234567", password },
    },
    "a careless call site",
  );

  expect(lines.length).toBeGreaterThan(5);
  const all = lines.join("\n");
  for (const needle of [
    secretPart,
    t.key,
    password,
    "ivan@example.com",
    "+79001234567",
    "+7 900 123 45 67",
    "leak.check@example.com",
  ]) {
    expect(all, needle).not.toContain(needle);
  }
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  const request = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "public api request");
  expect(request).toMatchObject({
    request_id: expect.stringMatching(/^req_/),
    method: "GET",
    status: 200,
    key_id: t.keyId,
  });
});
