import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberships, staffInvitations, staffSessions, staffUsers } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { handleAuthRequest } from "@/server/auth/handler";
import { ApiError } from "@/server/errors";
import { sendMail } from "@/server/services/mail/mailer";
import { invitationSecretHash } from "@/server/services/team/invitations";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { startSmtpCatcher, type SmtpCatcher } from "@/server/testing/smtp-catcher";
import { openTestDatabase, setTestEnv } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The team (issue 19 item 2) through the console's procedures, on better-auth's organization plugin with
// real sessions: invite with rights (the link mailed over SMTP to a catcher on 127.0.0.1, issue 76 item 2),
// join (new account with its membership, or an existing account), rights enforced on the server, change
// rights, remove (what the membership allowed ends, issue 76 item 5), revoke and expiry, the invited
// address only, once.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let smtp: SmtpCatcher;
let t: TenantFixture;
let other: TenantFixture;
const PASSWORD = "correct-horse-battery";
const OWNER = "owner@team.example";
type Staff = { id: string; email: string; name: string };

/** The token of the invitation link in the last mail to `email`. */
async function mailedToken(email: string): Promise<string> {
  const all = smtp.to(email);
  const mail = all.length ? all[all.length - 1] : await smtp.waitFor(email);
  const token = /\/console\/invitations\/([A-Za-z0-9_-]{43})\b/.exec(mail.text)?.[1];
  expect(token).toBeDefined();
  return token!;
}
const withMail = () => setTestEnv({ SMTP_URL: smtp.url });

/** Signs in for real; the caller carries the session cookie as the HTTP door would. */
async function signIn(email: string, password = PASSWORD) {
  const a = createAuth(db.db);
  const res = await a.api.signInEmail({ body: { email, password }, asResponse: true });
  expect(res.status).toBe(200);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  const headers = new Headers({ cookie });
  const session = await a.api.getSession({ headers });
  const staff: Staff = { id: session!.user.id, email: session!.user.email, name: session!.user.name };
  return { staff, headers, caller: createCaller({ db: db.db, staff, headers }) };
}
/** What the HTTP door would build from these headers now (null staff once the session is gone). */
async function callerFrom(headers: Headers) {
  const session = await createAuth(db.db).api.getSession({ headers });
  const staff = session ? { id: session.user.id, email: session.user.email, name: session.user.name } : null;
  return createCaller({ db: db.db, staff, headers });
}
async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}
const codes = (e: TRPCError) => [e.code, e.cause instanceof ApiError ? e.cause.code : null];

let owner: Awaited<ReturnType<typeof signIn>>;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  db = await openTestDatabase({ SMTP_URL: smtp.url });
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  await createStaffMember(db.db, { tenantId: t.tenantId, email: OWNER, password: PASSWORD, name: "Owner" });
  owner = await signIn(OWNER);
});
afterAll(async () => {
  await db.drop();
  await smtp.close();
});

describe("inviting and accepting", () => {
  let memberHeaders: Headers;
  let memberId: string;

  it("the owner invites with rights: the link is mailed to that address only, never shown; listed as pending", async () => {
    const inv = await owner.caller.team.invite({
      tenantId: t.tenantId,
      email: " New.Person@Team.example ",
      rights: ["manage_webhooks"],
    });
    expect(inv).toEqual({ id: expect.any(String), email: "new.person@team.example", mailed: true, url: null });
    const mail = smtp.to("new.person@team.example").at(-1)!;
    expect(mail.to).toEqual(["new.person@team.example"]);
    expect(mail.subject).toBe("Join Test shop in the platform console");
    const token = await mailedToken("new.person@team.example");
    expect(mail.text).toContain(`https://api.example.ru/console/invitations/${token}`);
    expect(mail.text).toContain(OWNER);
    const list = await owner.caller.team.invitations({ tenantId: t.tenantId });
    expect(list).toEqual([
      {
        id: inv.id,
        email: "new.person@team.example",
        rights: ["manage_webhooks"],
        state: "pending",
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
      },
    ]);
    // Nothing the console shows, and nothing stored, carries the link's secret; the id is not it.
    expect(JSON.stringify([inv, list])).not.toContain(token);
    expect(token).not.toBe(inv.id);
    const [row] = await db.db.select().from(staffInvitations).where(eq(staffInvitations.id, inv.id));
    expect(row.secretHash).toBe(invitationSecretHash(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
  });

  it("refuses a second pending invitation of the same email", async () => {
    const err = await rejects(
      owner.caller.team.invite({ tenantId: t.tenantId, email: "new.person@team.example", rights: [] }),
    );
    expect(codes(err)).toEqual(["CONFLICT", "invalid_state"]);
  });

  it("the link's holder joins with a new account: account, membership and accepted invitation at once", async () => {
    const token = await mailedToken("new.person@team.example");
    const anon = createCaller({ db: db.db, staff: null });
    const view = await anon.team.invitation({ token });
    // Exactly this: in particular nothing says whether the email already has an account.
    expect(view).toEqual({
      tenantName: "Test shop",
      email: "new.person@team.example",
      rights: ["manage_webhooks"],
      state: "pending",
      expiresAt: expect.any(String),
    });
    expect(await anon.team.createAccount({ token, name: "New Person", password: PASSWORD })).toEqual({
      email: "new.person@team.example",
      tenantId: t.tenantId,
    });
    const [user] = await db.db.select().from(staffUsers).where(eq(staffUsers.email, "new.person@team.example"));
    expect(
      await db.db
        .select({ role: memberships.role, rights: memberships.rights, active: memberships.active })
        .from(memberships)
        .where(eq(memberships.staffUserId, user.id)),
    ).toEqual([{ role: "member", rights: ["manage_webhooks"], active: true }]);
    expect((await anon.team.invitation({ token })).state).toBe("accepted");
    // a second account for the same invitation is refused
    expect(codes(await rejects(anon.team.createAccount({ token, name: "X", password: PASSWORD })))).toEqual([
      "CONFLICT",
      "invalid_state",
    ]);
    const m = await signIn("new.person@team.example");
    memberHeaders = m.headers;
    const overview = await m.caller.tenants.overview({ tenantId: t.tenantId });
    expect(overview.rights).toEqual(["manage_webhooks"]);
    const members = await owner.caller.team.members({ tenantId: t.tenantId });
    const row = members.find((x) => x.email === "new.person@team.example")!;
    expect(row).toMatchObject({ role: "member", rights: ["manage_webhooks"] });
    memberId = row.id;
    // only once
    expect(codes(await rejects(m.caller.team.accept({ token })))[0]).toBe("CONFLICT");
    expect(await owner.caller.team.invitations({ tenantId: t.tenantId })).toEqual([]);
  });

  it("a member without manage_team can neither invite, nor change rights, nor remove", async () => {
    const m = await callerFrom(memberHeaders);
    expect(codes(await rejects(m.team.invite({ tenantId: t.tenantId, email: "x@team.example", rights: [] })))[0]).toBe(
      "FORBIDDEN",
    );
    expect(codes(await rejects(m.team.invitations({ tenantId: t.tenantId })))[0]).toBe("FORBIDDEN");
    expect(codes(await rejects(m.team.setRights({ tenantId: t.tenantId, memberId, rights: [] })))[0]).toBe("FORBIDDEN");
    expect(codes(await rejects(m.team.remove({ tenantId: t.tenantId, memberId })))[0]).toBe("FORBIDDEN");
    // and what its rights do not cover elsewhere stays refused (topup_wallet)
    const topUp = await rejects(m.wallet.topUp({ tenantId: t.tenantId, amount: "1000" }));
    expect(topUp.code).toBe("FORBIDDEN");
    expect(topUp.message).toContain("topup_wallet");
  });

  it("the owner changes the member's rights; they take effect on the next call", async () => {
    const r = await owner.caller.team.setRights({
      tenantId: t.tenantId,
      memberId,
      rights: ["manage_webhooks", "manage_team", "topup_wallet"],
    });
    expect(r.rights).toEqual(["manage_webhooks", "topup_wallet", "manage_team"]);
    const m = await callerFrom(memberHeaders);
    expect((await m.tenants.overview({ tenantId: t.tenantId })).rights).toEqual([
      "manage_webhooks",
      "topup_wallet",
      "manage_team",
    ]);
  });

  it("a manager gives no right they lack, and never touches the owner or themselves", async () => {
    const m = await callerFrom(memberHeaders);
    const err = await rejects(
      m.team.invite({ tenantId: t.tenantId, email: "pd@team.example", rights: ["view_personal_data"] }),
    );
    expect(codes(err)).toEqual(["FORBIDDEN", "scope_missing"]);
    expect(err.message).toContain("view_personal_data");
    expect(await db.db.select().from(staffInvitations).where(eq(staffInvitations.email, "pd@team.example"))).toEqual(
      [],
    );
    const ownerRow = (await owner.caller.team.members({ tenantId: t.tenantId })).find((x) => x.role === "owner")!;
    expect(codes(await rejects(m.team.remove({ tenantId: t.tenantId, memberId: ownerRow.id })))).toEqual([
      "CONFLICT",
      "invalid_state",
    ]);
    expect(codes(await rejects(m.team.setRights({ tenantId: t.tenantId, memberId: ownerRow.id, rights: [] })))).toEqual(
      ["CONFLICT", "invalid_state"],
    );
    expect(codes(await rejects(m.team.setRights({ tenantId: t.tenantId, memberId, rights: [] })))).toEqual([
      "CONFLICT",
      "invalid_state",
    ]);
    // a right it holds it may give
    const ok = await m.team.invite({ tenantId: t.tenantId, email: "hooks@team.example", rights: ["manage_webhooks"] });
    expect(ok).toMatchObject({ mailed: true, url: null });
    expect(smtp.to("hooks@team.example")).toHaveLength(1);
  });

  it("removing a member who belongs to no other tenant ends their sessions at once", async () => {
    const m = await signIn("new.person@team.example"); // a second session of theirs
    await owner.caller.team.remove({ tenantId: t.tenantId, memberId });
    const [user] = await db.db.select().from(staffUsers).where(eq(staffUsers.email, "new.person@team.example"));
    expect(await db.db.select().from(staffSessions).where(eq(staffSessions.userId, user.id))).toEqual([]);
    expect(
      await db.db
        .select()
        .from(memberships)
        .where(and(eq(memberships.tenantId, t.tenantId), eq(memberships.staffUserId, user.id))),
    ).toEqual([]);
    for (const h of [memberHeaders, m.headers]) {
      const c = await callerFrom(h);
      expect((await rejects(c.tenants.overview({ tenantId: t.tenantId }))).code).toBe("UNAUTHORIZED");
    }
    // the owner's own session is untouched
    expect((await owner.caller.tenants.overview({ tenantId: t.tenantId })).role).toBe("owner");
  });

  it("removing a member from one tenant ends only that tenant: their other tenants and sessions go on", async () => {
    // A person who owns `other` and joins `t` by invitation (their session then has `t` active).
    const email = "two.tenants@team.example";
    await createStaffMember(db.db, { tenantId: other.tenantId, email, password: PASSWORD, name: "Two" });
    await owner.caller.team.invite({ tenantId: t.tenantId, email, rights: ["manage_webhooks"] });
    const p = await signIn(email);
    const second = await signIn(email); // a second session of theirs, e.g. another browser
    await p.caller.team.accept({ token: await mailedToken(email) });
    const [user] = await db.db.select().from(staffUsers).where(eq(staffUsers.email, email));
    const active = async () =>
      (await db.db.select().from(staffSessions).where(eq(staffSessions.userId, user.id)))
        .map((x) => x.activeOrganizationId)
        .sort();
    expect(await active()).toContain(t.tenantId);
    const memberRow = (await owner.caller.team.members({ tenantId: t.tenantId })).find((x) => x.email === email)!;

    await owner.caller.team.remove({ tenantId: t.tenantId, memberId: memberRow.id });

    for (const h of [p.headers, second.headers]) {
      const c = await callerFrom(h);
      // `t` is closed to them at once (their next call), and reads like a tenant they never belonged to ...
      expect(codes(await rejects(c.tenants.overview({ tenantId: t.tenantId })))).toEqual(["NOT_FOUND", "not_found"]);
      // ... while the tenant they still belong to keeps working with the same session.
      expect((await c.tenants.overview({ tenantId: other.tenantId })).role).toBe("owner");
      expect((await c.tenants.mine()).map((x) => x.id)).toEqual([other.tenantId]);
    }
    // Both sessions live on, and none names `t` as its active tenant any more.
    const after = await active();
    expect(after).toHaveLength(2);
    expect(after).not.toContain(t.tenantId);
  });
});

describe("what an invitation link cannot do", () => {
  const accountsOf = (email: string) => db.db.select().from(staffUsers).where(eq(staffUsers.email, email));

  it("is accepted only by the invited address", async () => {
    await owner.caller.team.invite({ tenantId: t.tenantId, email: "only.me@team.example", rights: [] });
    await createStaffMember(db.db, {
      tenantId: other.tenantId,
      email: "someone@team.example",
      password: PASSWORD,
      name: "S",
    });
    const s = await signIn("someone@team.example");
    const token = await mailedToken("only.me@team.example");
    expect((await rejects(s.caller.team.accept({ token }))).code).toBe("FORBIDDEN");
    await expect(s.caller.team.members({ tenantId: t.tenantId })).rejects.toThrow();
  });

  it("an existing account of the invited email signs in and accepts; no second account is made", async () => {
    await owner.caller.team.invite({ tenantId: t.tenantId, email: "someone@team.example", rights: ["topup_wallet"] });
    const token = await mailedToken("someone@team.example");
    const anon = createCaller({ db: db.db, staff: null });
    expect(Object.keys(await anon.team.invitation({ token })).sort()).toEqual([
      "email",
      "expiresAt",
      "rights",
      "state",
      "tenantName",
    ]);
    expect(codes(await rejects(anon.team.createAccount({ token, name: "S", password: "another-password-1" })))).toEqual(
      ["CONFLICT", "invalid_state"],
    );
    expect(await accountsOf("someone@team.example")).toHaveLength(1);
    expect(await db.db.select().from(memberships).where(eq(memberships.tenantId, t.tenantId))).not.toContainEqual(
      expect.objectContaining({ rights: ["topup_wallet"] }),
    );
    const s = await signIn("someone@team.example");
    await s.caller.team.accept({ token });
    expect((await s.caller.tenants.overview({ tenantId: t.tenantId })).rights).toEqual(["topup_wallet"]);
  });

  it("a revoked invitation makes no account and no membership", async () => {
    const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "revoked@team.example", rights: [] });
    const token = await mailedToken("revoked@team.example");
    await owner.caller.team.revokeInvitation({ tenantId: t.tenantId, invitationId: inv.id });
    const anon = createCaller({ db: db.db, staff: null });
    expect((await anon.team.invitation({ token })).state).toBe("canceled");
    expect(codes(await rejects(anon.team.createAccount({ token, name: "R", password: PASSWORD })))).toEqual([
      "CONFLICT",
      "invalid_state",
    ]);
    expect(await accountsOf("revoked@team.example")).toEqual([]);
  });

  it("an expired invitation makes no account and cannot be accepted", async () => {
    const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "late@team.example", rights: [] });
    const token = await mailedToken("late@team.example");
    await db.db
      .update(staffInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffInvitations.id, inv.id));
    const anon = createCaller({ db: db.db, staff: null });
    expect((await anon.team.invitation({ token })).state).toBe("expired");
    expect(codes(await rejects(anon.team.createAccount({ token, name: "Late", password: PASSWORD })))).toEqual([
      "CONFLICT",
      "invalid_state",
    ]);
    expect(await accountsOf("late@team.example")).toEqual([]);
  });

  it("the invitation's id opens nothing: it is not the link's secret", async () => {
    const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "id.only@team.example", rights: [] });
    const anon = createCaller({ db: db.db, staff: null });
    for (const token of [inv.id, invitationSecretHash(await mailedToken("id.only@team.example"))]) {
      expect(codes(await rejects(anon.team.invitation({ token })))[0]).toBe("BAD_REQUEST");
      expect(codes(await rejects(anon.team.createAccount({ token, name: "I", password: PASSWORD })))[0]).toBe(
        "BAD_REQUEST",
      );
      expect(codes(await rejects(owner.caller.team.accept({ token })))[0]).toBe("BAD_REQUEST");
    }
    // a well-formed token that is no invitation's reads as not found
    const unknown = "A".repeat(43);
    expect(codes(await rejects(anon.team.invitation({ token: unknown })))).toEqual(["NOT_FOUND", "not_found"]);
    expect(codes(await rejects(anon.team.createAccount({ token: unknown, name: "I", password: PASSWORD })))).toEqual([
      "NOT_FOUND",
      "not_found",
    ]);
    expect(await accountsOf("id.only@team.example")).toEqual([]);
  });

  it("another tenant's invitation and member read as missing", async () => {
    await createStaffMember(db.db, {
      tenantId: other.tenantId,
      email: "other-owner@team.example",
      password: PASSWORD,
      name: "O",
    });
    const o = await signIn("other-owner@team.example");
    const [inv] = await owner.caller.team.invitations({ tenantId: t.tenantId });
    expect(
      codes(await rejects(o.caller.team.revokeInvitation({ tenantId: other.tenantId, invitationId: inv.id }))),
    ).toEqual(["NOT_FOUND", "not_found"]);
    const member = (await owner.caller.team.members({ tenantId: t.tenantId })).find((x) => x.role !== "owner")!;
    expect(codes(await rejects(o.caller.team.remove({ tenantId: other.tenantId, memberId: member.id })))).toEqual([
      "NOT_FOUND",
      "not_found",
    ]);
  });
});

describe("how the link is delivered", () => {
  it("outside production without mail, the inviter is shown the link once; the list never shows it", async () => {
    setTestEnv(); // NODE_ENV=test, no SMTP_URL: as in development and the demo
    try {
      const sent = smtp.messages.length;
      const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "shown@team.example", rights: [] });
      expect(inv.mailed).toBe(false);
      const token = /\/console\/invitations\/([A-Za-z0-9_-]{43})$/.exec(inv.url ?? "")?.[1];
      expect(token).toBeDefined();
      expect(smtp.messages).toHaveLength(sent);
      expect(JSON.stringify(await owner.caller.team.invitations({ tenantId: t.tenantId }))).not.toContain(token);
      const anon = createCaller({ db: db.db, staff: null });
      expect((await anon.team.invitation({ token: token! })).email).toBe("shown@team.example");
    } finally {
      withMail();
    }
  });

  it("in production without SMTP_URL, inviting is refused with a clear error and nothing is written", async () => {
    setTestEnv({ NODE_ENV: "production", PAYMENT_SANDBOX: "allow" });
    try {
      const err = await rejects(
        owner.caller.team.invite({ tenantId: t.tenantId, email: "prod@team.example", rights: [] }),
      );
      expect(codes(err)).toEqual(["SERVICE_UNAVAILABLE", "service_unavailable"]);
      expect(err.message).toContain("SMTP_URL");
      expect(
        await db.db.select().from(staffInvitations).where(eq(staffInvitations.email, "prod@team.example")),
      ).toEqual([]);
    } finally {
      withMail();
    }
  });

  it("in production with SMTP_URL, the link is mailed and not shown", async () => {
    setTestEnv({ NODE_ENV: "production", PAYMENT_SANDBOX: "allow", SMTP_URL: smtp.url });
    try {
      const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "prod.mail@team.example", rights: [] });
      expect(inv).toMatchObject({ mailed: true, url: null });
      expect(await mailedToken("prod.mail@team.example")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      withMail();
    }
  });

  it("a link the mail server did not take withdraws its invitation, so the inviter can simply try again", async () => {
    setTestEnv({ SMTP_URL: "smtp://127.0.0.1:1/?ignoreTLS=true&connectionTimeout=2000" });
    try {
      const err = await rejects(
        owner.caller.team.invite({ tenantId: t.tenantId, email: "bounced@team.example", rights: [] }),
      );
      expect(codes(err)).toEqual(["SERVICE_UNAVAILABLE", "upstream_unavailable"]);
      const rows = await db.db
        .select()
        .from(staffInvitations)
        .where(eq(staffInvitations.email, "bounced@team.example"));
      expect(rows.map((r) => r.status)).toEqual(["canceled"]);
    } finally {
      withMail();
    }
    const again = await owner.caller.team.invite({ tenantId: t.tenantId, email: "bounced@team.example", rights: [] });
    expect(again.mailed).toBe(true);
  });
});

describe("the plugin's own HTTP routes", () => {
  it("are not served: a signed-in member cannot invite or remove around the procedures' rights checks", async () => {
    for (const [path, body] of [
      ["/organization/invite-member", { email: "around@team.example", role: "member", organizationId: t.tenantId }],
      ["/organization/remove-member", { memberIdOrEmail: OWNER, organizationId: t.tenantId }],
      ["/organization/update-member-role", { memberId: "x", role: "owner", organizationId: t.tenantId }],
    ] as const) {
      const res = await handleAuthRequest(
        createAuth(db.db),
        new Request(`https://api.example.ru/api/auth${path}`, {
          method: "POST",
          headers: {
            ...Object.fromEntries(owner.headers),
            "content-type": "application/json",
            origin: "https://api.example.ru",
          },
          body: JSON.stringify(body),
        }),
      );
      expect(res.status).toBe(404);
    }
    expect(
      await db.db.select().from(staffInvitations).where(eq(staffInvitations.email, "around@team.example")),
    ).toEqual([]);
  });
});

describe("mail", () => {
  it("is not sent without SMTP_URL", async () => {
    setTestEnv();
    try {
      expect(await sendMail({ to: "x@team.example", subject: "s", text: "t" })).toBe(false);
    } finally {
      withMail();
    }
  });
});
