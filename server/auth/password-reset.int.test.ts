import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { GET as authGet, POST as authPost } from "@/app/api/auth/[...all]/route";
import { staffSessions, staffUsers, staffVerifications } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { setClock } from "@/server/lib/clock";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant } from "@/server/testing/fixtures";
import { serveRoutes, type RouteServer } from "@/server/testing/route-server";
import { startSmtpCatcher, type SmtpCatcher } from "@/server/testing/smtp-catcher";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { setSignInLimits, type SignInLimits } from "./sign-in-limits";

// Password reset by mail (issue 76 item 2), better-auth's own, over real HTTP to the app's /api/auth route
// (route-server.ts stamps the TCP peer as server/http-server.ts does) and real SMTP to a catcher on
// 127.0.0.1: the link reaches the account's own address only, works once and for an hour, ends every
// session of the account, and the request neither tells who has an account nor floods a mailbox.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let smtp: SmtpCatcher;
let server: RouteServer;
let userId: string;
const ORIGIN = "https://api.example.ru";
const EMAIL = "owner@reset.example";
const PASSWORD = "correct-horse-battery";
const LIMITS: SignInLimits = { perAddress: 6, perAccountFromAddress: 3, perAccount: 4 };
let minute = 0;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  db = await openTestDatabase({ SMTP_URL: smtp.url });
  const t = await makeTenant(db.db);
  userId = (await createStaffMember(db.db, { tenantId: t.tenantId, email: EMAIL, password: PASSWORD, name: "Owner" }))
    .staffUserId;
  setSignInLimits(LIMITS);
  server = await serveRoutes(ORIGIN, (method) => (method === "GET" ? authGet : authPost));
});
beforeEach(() => {
  // Each test at its own fixed instant, minutes apart, so the sign-in limits' windows hold only its attempts.
  const start = Math.floor(Date.now() / 60_000) * 60_000 + 60_000 * 1000 + ++minute * 120_000 + 1_000;
  setClock(() => start);
  setTestEnv({ SMTP_URL: smtp.url });
});
afterAll(async () => {
  setSignInLimits(undefined);
  setClock(undefined);
  setTestEnv();
  await server?.close();
  await db.drop();
  await smtp.close();
});

async function post(path: string, body: unknown, from = "127.0.0.1", contentType = "application/json") {
  const r = await server.send("POST", `/api/auth${path}`, {
    from,
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": contentType, origin: ORIGIN },
  });
  return {
    status: r.status,
    headers: r.headers,
    body: r.text ? (JSON.parse(r.text) as { code?: string; message?: string; status?: boolean }) : null,
  };
}
const sessions = () => db.db.select().from(staffSessions).where(eq(staffSessions.userId, userId));
/** The reset token of the `n`th mail (0-based) to `email`. */
async function mailedToken(email: string, n: number): Promise<string> {
  const mail = await smtp.waitFor(email, { skip: n });
  const token = new RegExp(`${ORIGIN}/console/reset-password/([A-Za-z0-9_-]+)\\b`).exec(mail.text)?.[1];
  expect(token).toBeDefined();
  return token!;
}

it("mails a one-time link to the account's own address; setting the password ends every session", async () => {
  // Two signed-in sessions of the account (two browsers), e.g. one of them someone else's.
  const a = createAuth(db.db);
  const cookies: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await a.api.signInEmail({ body: { email: EMAIL, password: PASSWORD }, asResponse: true });
    cookies.push((res.headers.get("set-cookie") ?? "").split(";")[0]);
  }
  expect(await sessions()).toHaveLength(2);

  const asked = await post("/request-password-reset", { email: "Owner@Reset.example" }, "127.0.0.2");
  expect(asked.status).toBe(200);
  expect(asked.body).toMatchObject({ status: true });
  const mail = await smtp.waitFor(EMAIL);
  expect(mail.to).toEqual([EMAIL]);
  expect(mail.subject).toBe("Set a new password for the platform console");
  const token = await mailedToken(EMAIL, 0);
  // The table keeps a hash of the token's identifier, never the token.
  expect(JSON.stringify(await db.db.select().from(staffVerifications))).not.toContain(token);

  const reset = await post("/reset-password", { newPassword: "a-brand-new-password", token }, "127.0.0.3");
  expect(reset.status).toBe(200);
  expect(reset.body).toEqual({ status: true });
  expect(await sessions()).toEqual([]);
  for (const cookie of cookies) expect(await a.api.getSession({ headers: new Headers({ cookie }) })).toBeNull();

  expect((await post("/sign-in/email", { email: EMAIL, password: PASSWORD }, "127.0.0.4")).status).toBe(401);
  expect((await post("/sign-in/email", { email: EMAIL, password: "a-brand-new-password" }, "127.0.0.4")).status).toBe(
    200,
  );
  // once only
  const again = await post("/reset-password", { newPassword: "yet-another-password", token }, "127.0.0.3");
  expect(again.status).toBe(400);
  expect(again.body?.code).toBe("INVALID_TOKEN");
  await a.api.signInEmail({ body: { email: EMAIL, password: "a-brand-new-password" } });
});

it("answers an email without an account exactly as one with, and mails nothing", async () => {
  const known = await post("/request-password-reset", { email: EMAIL }, "127.0.0.5");
  const unknown = await post("/request-password-reset", { email: "nobody@reset.example" }, "127.0.0.5");
  expect(unknown.status).toBe(known.status);
  expect(unknown.body).toEqual(known.body);
  await smtp.waitFor(EMAIL, { skip: 1 });
  await new Promise((r) => setTimeout(r, 300));
  expect(smtp.to("nobody@reset.example")).toEqual([]);
  expect(await db.db.select().from(staffUsers).where(eq(staffUsers.email, "nobody@reset.example"))).toEqual([]);
});

it("a link past its hour sets nothing", async () => {
  const before = smtp.to(EMAIL).length;
  expect((await post("/request-password-reset", { email: EMAIL }, "127.0.0.6")).status).toBe(200);
  const token = await mailedToken(EMAIL, before);
  const rows = await db.db.select().from(staffVerifications).where(eq(staffVerifications.value, userId));
  const expiresIn = Math.max(...rows.map((r) => r.expiresAt.getTime())) - Date.now();
  expect(expiresIn).toBeGreaterThan(3590_000);
  expect(expiresIn).toBeLessThanOrEqual(3600_000);
  await db.db
    .update(staffVerifications)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(staffVerifications.value, userId));
  const r = await post("/reset-password", { newPassword: "never-set-password", token }, "127.0.0.6");
  expect(r.status).toBe(400);
  expect(r.body?.code).toBe("INVALID_TOKEN");
  expect((await post("/sign-in/email", { email: EMAIL, password: "never-set-password" }, "127.0.0.6")).status).toBe(
    401,
  );
});

it("asking for reset mail counts like sign-in attempts, so nobody floods a mailbox through the form", async () => {
  const before = smtp.to(EMAIL).length;
  const statuses: number[] = [];
  for (let i = 0; i < LIMITS.perAccount + 1; i++)
    statuses.push((await post("/request-password-reset", { email: EMAIL }, `127.0.1.${i + 1}`)).status);
  expect(statuses).toEqual([...Array(LIMITS.perAccount).fill(200), 429]);
  const refused = await post("/request-password-reset", { email: EMAIL }, "127.0.2.1");
  expect(refused.status).toBe(429);
  expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  expect(refused.body?.message).toMatch(/^Too many password reset attempts for this account; try again in \d+ s\.$/);
  await smtp.waitFor(EMAIL, { skip: before + LIMITS.perAccount - 1 });
  await new Promise((r) => setTimeout(r, 300));
  expect(smtp.to(EMAIL)).toHaveLength(before + LIMITS.perAccount);
  // Only JSON: no other encoding slips past the account's count.
  const form = await post(
    "/request-password-reset",
    `email=${encodeURIComponent(EMAIL)}`,
    "127.0.3.1",
    "application/x-www-form-urlencoded",
  );
  expect(form.status).toBe(400);
});
