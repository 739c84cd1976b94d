import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberships, staffInvitations, staffSessions, staffUsers } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { handleAuthRequest } from "@/server/auth/handler";
import { ApiError } from "@/server/errors";
import { sendMail, setMailer, type MailMessage } from "@/server/services/mail/mailer";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The team (issue 19 item 2) through the console's procedures, on better-auth's organization plugin with
// real sessions: invite with rights, accept (new account and existing one), rights enforced on the server,
// change rights, remove (sessions end), revoke and expiry, the invited address only, once.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
const PASSWORD = "correct-horse-battery";
const OWNER = "owner@team.example";
const mail: MailMessage[] = [];
type Staff = { id: string; email: string; name: string };

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
  db = await openTestDatabase();
  setMailer({ send: async (m) => void mail.push(m) });
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  await createStaffMember(db.db, { tenantId: t.tenantId, email: OWNER, password: PASSWORD, name: "Owner" });
  owner = await signIn(OWNER);
});
afterAll(async () => {
  setMailer(undefined);
  await db.drop();
});

describe("inviting and accepting", () => {
  let memberHeaders: Headers;
  let memberId: string;

  it("the owner invites with rights: a link to copy, mailed too, listed as pending", async () => {
    const inv = await owner.caller.team.invite({
      tenantId: t.tenantId,
      email: " New.Person@Team.example ",
      rights: ["manage_webhooks"],
    });
    expect(inv.email).toBe("new.person@team.example");
    expect(inv.url).toBe(`https://api.example.ru/console/invitations/${inv.id}`);
    expect(mail.at(-1)).toMatchObject({ to: "new.person@team.example" });
    expect(mail.at(-1)!.text).toContain(inv.url);
    const list = await owner.caller.team.invitations({ tenantId: t.tenantId });
    expect(list).toEqual([
      expect.objectContaining({
        id: inv.id,
        email: "new.person@team.example",
        rights: ["manage_webhooks"],
        state: "pending",
      }),
    ]);
    const [row] = await db.db.select().from(staffInvitations).where(eq(staffInvitations.id, inv.id));
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
  });

  it("refuses a second pending invitation of the same email", async () => {
    const err = await rejects(
      owner.caller.team.invite({ tenantId: t.tenantId, email: "new.person@team.example", rights: [] }),
    );
    expect(codes(err)).toEqual(["CONFLICT", "invalid_state"]);
  });

  it("the link's holder sets a password, signs in and accepts: a member with the invited rights", async () => {
    const [inv] = await owner.caller.team.invitations({ tenantId: t.tenantId });
    const anon = createCaller({ db: db.db, staff: null });
    const view = await anon.team.invitation({ invitationId: inv.id });
    expect(view).toMatchObject({
      tenantName: "Test shop",
      email: "new.person@team.example",
      state: "pending",
      accountExists: false,
    });
    await anon.team.createAccount({ invitationId: inv.id, name: "New Person", password: PASSWORD });
    // a second account for the same invitation is refused
    expect(
      codes(await rejects(anon.team.createAccount({ invitationId: inv.id, name: "X", password: PASSWORD }))),
    ).toEqual(["CONFLICT", "invalid_state"]);
    const m = await signIn("new.person@team.example");
    memberHeaders = m.headers;
    expect(await m.caller.team.accept({ invitationId: inv.id })).toEqual({ tenantId: t.tenantId });
    const overview = await m.caller.tenants.overview({ tenantId: t.tenantId });
    expect(overview.rights).toEqual(["manage_webhooks"]);
    const members = await owner.caller.team.members({ tenantId: t.tenantId });
    const row = members.find((x) => x.email === "new.person@team.example")!;
    expect(row).toMatchObject({ role: "member", rights: ["manage_webhooks"] });
    memberId = row.id;
    // only once
    expect(codes(await rejects(m.caller.team.accept({ invitationId: inv.id })))[0]).toBe("CONFLICT");
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
    expect(ok.url).toContain(ok.id);
  });

  it("removing a member ends their sessions at once and their next call is refused", async () => {
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
});

describe("what an invitation link cannot do", () => {
  it("is accepted only by the invited address", async () => {
    const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "only.me@team.example", rights: [] });
    await createStaffMember(db.db, {
      tenantId: other.tenantId,
      email: "someone@team.example",
      password: PASSWORD,
      name: "S",
    });
    const s = await signIn("someone@team.example");
    expect((await rejects(s.caller.team.accept({ invitationId: inv.id }))).code).toBe("FORBIDDEN");
    await expect(s.caller.team.members({ tenantId: t.tenantId })).rejects.toThrow();
  });

  it("an existing account of the invited email signs in and accepts (no new password)", async () => {
    const inv = await owner.caller.team.invite({
      tenantId: t.tenantId,
      email: "someone@team.example",
      rights: ["topup_wallet"],
    });
    const anon = createCaller({ db: db.db, staff: null });
    expect((await anon.team.invitation({ invitationId: inv.id })).accountExists).toBe(true);
    expect(
      codes(await rejects(anon.team.createAccount({ invitationId: inv.id, name: "S", password: PASSWORD }))),
    ).toEqual(["CONFLICT", "invalid_state"]);
    const s = await signIn("someone@team.example");
    await s.caller.team.accept({ invitationId: inv.id });
    expect((await s.caller.tenants.overview({ tenantId: t.tenantId })).rights).toEqual(["topup_wallet"]);
  });

  it("a revoked invitation cannot be accepted or used to make an account", async () => {
    const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "revoked@team.example", rights: [] });
    await owner.caller.team.revokeInvitation({ tenantId: t.tenantId, invitationId: inv.id });
    const anon = createCaller({ db: db.db, staff: null });
    expect((await anon.team.invitation({ invitationId: inv.id })).state).toBe("canceled");
    expect(
      codes(await rejects(anon.team.createAccount({ invitationId: inv.id, name: "R", password: PASSWORD }))),
    ).toEqual(["CONFLICT", "invalid_state"]);
  });

  it("an expired invitation cannot be accepted", async () => {
    const inv = await owner.caller.team.invite({ tenantId: t.tenantId, email: "late@team.example", rights: [] });
    const anon = createCaller({ db: db.db, staff: null });
    await anon.team.createAccount({ invitationId: inv.id, name: "Late", password: PASSWORD });
    await db.db
      .update(staffInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffInvitations.id, inv.id));
    expect((await anon.team.invitation({ invitationId: inv.id })).state).toBe("expired");
    const s = await signIn("late@team.example");
    expect((await rejects(s.caller.team.accept({ invitationId: inv.id }))).code).toBe("CONFLICT");
    await expect(s.caller.tenants.overview({ tenantId: t.tenantId })).rejects.toThrow();
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
  it("is not sent without SMTP_URL: the link is what the console and the CLI show", async () => {
    setMailer(undefined);
    try {
      expect(await sendMail({ to: "x@team.example", subject: "s", text: "t" })).toBe(false);
    } finally {
      setMailer({ send: async (m) => void mail.push(m) });
    }
  });
});
