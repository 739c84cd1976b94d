import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET as authGet, POST as authPost } from "@/app/api/auth/[...all]/route";
import { memberships, staffInvitations, staffSessions, staffUsers } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { ApiError } from "@/server/errors";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { serveRoutes, type RouteServer } from "@/server/testing/route-server";
import { startSmtpCatcher, type SmtpCatcher } from "@/server/testing/smtp-catcher";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { createCaller } from "./root";

// Issue 76 item 2, the attack repeated as it was found, through the console's procedures and the app's
// /api/auth route, with mail over real SMTP to a catcher on 127.0.0.1 (the victim's mailbox). Before the
// fix, the member who invites saw the invitation link, opened it, set the invited person's password
// (`team.createAccount`), and revoked the invitation: the account stayed, its owner was locked out for good
// (no password reset; `staff:create` refuses the email), and the inviter could later accept another
// tenant's invitation for that email. Now, in the production configuration, none of it can be done; and
// where a development server without mail does show the link, what it can do is bounded and undone by
// the person's password reset.

const ORIGIN = "https://api.example.ru";
const PASSWORD = "attacker-chosen-pass";
const ATTACKER = "attacker@evil.example";
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let smtp: SmtpCatcher;
let server: RouteServer;
let attackerTenant: TenantFixture;
let victimEmployer: TenantFixture;
const production = () => setTestEnv({ NODE_ENV: "production", PAYMENT_SANDBOX: "allow", SMTP_URL: smtp.url });

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  db = await openTestDatabase({ NODE_ENV: "production", PAYMENT_SANDBOX: "allow", SMTP_URL: smtp.url });
  attackerTenant = await makeTenant(db.db);
  victimEmployer = await makeTenant(db.db);
  // The attacker: a member of their own tenant with manage_team (here its owner).
  await createStaffMember(db.db, { tenantId: attackerTenant.tenantId, email: ATTACKER, password: PASSWORD, name: "A" });
  await createStaffMember(db.db, {
    tenantId: victimEmployer.tenantId,
    email: "boss@employer.example",
    password: "employer-password-1",
    name: "Boss",
  });
  server = await serveRoutes(ORIGIN, (method) => (method === "GET" ? authGet : authPost));
});
afterAll(async () => {
  setTestEnv();
  await server?.close();
  await db.drop();
  await smtp.close();
});

async function signIn(email: string, password: string) {
  const a = createAuth(db.db);
  const res = await a.api.signInEmail({ body: { email, password }, asResponse: true });
  expect(res.status).toBe(200);
  const headers = new Headers({ cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] });
  const session = await a.api.getSession({ headers });
  const staff = { id: session!.user.id, email: session!.user.email, name: session!.user.name };
  return { headers, caller: createCaller({ db: db.db, staff, headers }) };
}
const anon = () => createCaller({ db: db.db, staff: null });
async function refused(p: Promise<unknown>): Promise<[string, string | null]> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  const e = err as TRPCError;
  return [e.code, e.cause instanceof ApiError ? e.cause.code : null];
}
const accountsOf = (email: string) => db.db.select().from(staffUsers).where(eq(staffUsers.email, email));
/** The invitation token in the last mail to `email` (the victim's own mailbox). */
async function linkInMailbox(email: string): Promise<string> {
  await smtp.waitFor(email);
  const token = /\/console\/invitations\/([A-Za-z0-9_-]{43})\b/.exec(smtp.to(email).at(-1)!.text)?.[1];
  expect(token).toBeDefined();
  return token!;
}

it("production: the inviter never holds the link, so cannot make, keep or reuse the invited person's account", async () => {
  production();
  const victim = "victim@mail.example";
  const attacker = await signIn(ATTACKER, PASSWORD);

  // 1. The attacker invites the victim and looks at everything the console gives them.
  const inv = await attacker.caller.team.invite({ tenantId: attackerTenant.tenantId, email: victim, rights: [] });
  const listed = await attacker.caller.team.invitations({ tenantId: attackerTenant.tenantId });
  const secret = await linkInMailbox(victim);
  expect(inv.url).toBeNull();
  expect(JSON.stringify([inv, listed])).not.toContain(secret);

  // 2. "Opens it": nothing the attacker holds opens the invitation, through any door.
  for (const guess of [inv.id, inv.id.replace(/-/g, ""), "A".repeat(43)]) {
    expect((await refused(anon().team.invitation({ token: guess })))[0]).toMatch(/BAD_REQUEST|NOT_FOUND/);
    // 3. "Sets the invited person's password": refused, no account.
    expect((await refused(anon().team.createAccount({ token: guess, name: "V", password: PASSWORD })))[0]).toMatch(
      /BAD_REQUEST|NOT_FOUND/,
    );
  }
  const pluginAccept = await server.send("POST", "/api/auth/organization/accept-invitation", {
    body: JSON.stringify({ invitationId: inv.id }),
    headers: { "content-type": "application/json", origin: ORIGIN, cookie: attacker.headers.get("cookie")! },
  });
  expect(pluginAccept.status).toBe(404);
  expect(await accountsOf(victim)).toEqual([]);

  // 4. "Revokes the invitation": the link in the victim's mailbox then makes no account either.
  await attacker.caller.team.revokeInvitation({ tenantId: attackerTenant.tenantId, invitationId: inv.id });
  expect((await anon().team.invitation({ token: secret })).state).toBe("canceled");
  expect(await refused(anon().team.createAccount({ token: secret, name: "V", password: PASSWORD }))).toEqual([
    "CONFLICT",
    "invalid_state",
  ]);
  expect(await accountsOf(victim)).toEqual([]);

  // 5. The victim is not locked out: their employer's invitation reaches their mailbox and they join
  //    with their own password; the attacker holds neither that password nor any session of it.
  const boss = await signIn("boss@employer.example", "employer-password-1");
  await boss.caller.team.invite({ tenantId: victimEmployer.tenantId, email: victim, rights: ["topup_wallet"] });
  const joined = await anon().team.createAccount({
    token: await linkInMailbox(victim),
    name: "Victim",
    password: "victims-own-password",
  });
  expect(joined.tenantId).toBe(victimEmployer.tenantId);
  const v = await signIn(victim, "victims-own-password");
  expect((await v.caller.tenants.mine()).map((x) => x.id)).toEqual([victimEmployer.tenantId]);
  await expect(createAuth(db.db).api.signInEmail({ body: { email: victim, password: PASSWORD } })).rejects.toThrow();
});

it("development without mail shows the link, yet an account made from it is a visible member, never an orphan, and the person takes it back", async () => {
  // As in development or the demo without SMTP_URL: the inviter is shown the link, under a warning.
  setTestEnv({ NODE_ENV: "development" });
  const victim = "victim2@mail.example";
  const attacker = await signIn(ATTACKER, PASSWORD);
  const inv = await attacker.caller.team.invite({ tenantId: attackerTenant.tenantId, email: victim, rights: [] });
  const token = /\/console\/invitations\/([A-Za-z0-9_-]{43})$/.exec(inv.url!)![1];

  // The attacker opens it, sets a password: the account comes with its membership, and the invitation is used.
  await anon().team.createAccount({ token, name: "Victim", password: PASSWORD });
  const [account] = await accountsOf(victim);
  expect(
    await db.db
      .select({ tenantId: memberships.tenantId })
      .from(memberships)
      .where(eq(memberships.staffUserId, account.id)),
  ).toEqual([{ tenantId: attackerTenant.tenantId }]);
  // Revoking it to hide the account is refused: it is a member of the attacker's team, shown as such.
  expect(
    await refused(attacker.caller.team.revokeInvitation({ tenantId: attackerTenant.tenantId, invitationId: inv.id })),
  ).toEqual(["CONFLICT", "invalid_state"]);
  const [row] = await db.db.select().from(staffInvitations).where(eq(staffInvitations.id, inv.id));
  expect(row.status).toBe("accepted");
  const squatter = await signIn(victim, PASSWORD);

  // The person asks for a password reset by mail (this server has mail now): the link reaches their
  // mailbox only; setting the password ends every session of the account, the attacker's included.
  setTestEnv({ NODE_ENV: "development", SMTP_URL: smtp.url });
  const asked = await server.send("POST", "/api/auth/request-password-reset", {
    body: JSON.stringify({ email: victim }),
    headers: { "content-type": "application/json", origin: ORIGIN },
  });
  expect(asked.status).toBe(200);
  const mail = await smtp.waitFor(victim);
  const resetToken = /\/console\/reset-password\/([A-Za-z0-9_-]+)\b/.exec(mail.text)![1];
  const reset = await server.send("POST", "/api/auth/reset-password", {
    body: JSON.stringify({ newPassword: "victims-own-password", token: resetToken }),
    headers: { "content-type": "application/json", origin: ORIGIN },
  });
  expect(reset.status).toBe(200);
  expect(await db.db.select().from(staffSessions).where(eq(staffSessions.userId, account.id))).toEqual([]);
  expect(await createAuth(db.db).api.getSession({ headers: squatter.headers })).toBeNull();
  await expect(createAuth(db.db).api.signInEmail({ body: { email: victim, password: PASSWORD } })).rejects.toThrow();

  // Another tenant's later invitation is the person's to accept, not the attacker's.
  production();
  const boss = await signIn("boss@employer.example", "employer-password-1");
  await boss.caller.team.invite({ tenantId: victimEmployer.tenantId, email: victim, rights: [] });
  const next = await linkInMailbox(victim);
  const v = await signIn(victim, "victims-own-password");
  expect(await v.caller.team.accept({ token: next })).toEqual({ tenantId: victimEmployer.tenantId });
});
