import { TRPCError } from "@trpc/server";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { integrations, memberships } from "@/db/schema";
import { RIGHTS, SCOPES, type Right, type Scope } from "@/server/schemas/scopes";
import { authenticate } from "@/server/services/access/authenticate";
import { grantedScopes } from "@/server/services/access/pii-transfer";
import { rightFor } from "@/server/services/access/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { makeStaff, makeTenant, setMembership } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { appRouter, createCaller } from "./root";

// Issue 76 item 1, generated: every console procedure that changes an integration, a key, or the rights
// that cut a key (the owner's and the issuer's), walked by a member lacking each right in turn, in every
// ordered pair of changes. After each change, every key of the tenant is authenticated through the real
// path (authenticate, as GET /me and every route) and what it reads is compared with what it read before
// the walk: a scope it gained must be one the member's own rights cover. So no sequence of two changes
// (role content → key → role full, suspend → reactivate, roll under a narrowed role, ...) lets a member
// give a key what they may not see. A new mutation of the console's router fails the first test until
// it is walked here or listed as changing none of these.

/** Mutations that change none of an integration, a key, or a right that cuts keys, with why. */
const UNRELATED: Record<string, string> = {
  "wallet.topUp": "starts a payment",
  "wallet.checkPayment": "reads a payment from its provider",
  "webhooks.create": "subscriptions (their include_pii rule: rights.int.test.ts)",
  "webhooks.update": "subscriptions",
  "webhooks.setStatus": "subscriptions",
  "webhooks.rotateSecret": "subscriptions",
  "webhooks.sendTest": "subscriptions",
  "webhooks.remove": "subscriptions",
  "webhooks.resend": "deliveries",
  "webhooks.resendDeadSince": "deliveries",
  "operations.setLimits": "the tenant's spend limits",
  "team.invite": "an invitation carries rights only the inviter holds (team.int.test.ts)",
  "team.revokeInvitation": "invitations",
  "team.remove": "only narrows: the member's keys are revoked with it (role-detour.int.test.ts)",
  "team.createAccount": "an account without a membership",
  "team.accept": "a membership with the invited rights",
  "settings.setMainDomain": "the tenant's main domain",
  "settings.setChannelAi": "a channel's AI settings (channels of any kind)",
  "sandbox.reset": "the tenant's sandbox rows (sample data); no integration, key or right",
  "leads.update": "a lead's fields under its etag",
  "leads.score": "a paid scoring of a lead (the tenant's wallet, a staff-started operation)",
  "leads.putStatusMap": "the CRM status map (a tenant setting)",
  "leads.setCrmMode": "the CRM mode (who owns lead statuses); no scope or right",
  "articles.update": "an article's fields under its etag",
  "articles.approve": "an article's status",
  "articles.publish": "an article's publication (a job for a site connector, or a hand-off)",
  "articleGeneration.saveProfile": "the editorial profile (a tenant setting)",
  "articleGeneration.generate": "a paid article generation (the tenant's wallet, a staff-started operation)",
  "strategist.approveTopic": "a strategist topic's status",
  "strategist.rejectTopic": "a strategist topic's status",
  "strategist.confirmAction": "a strategist action's status and the topic it creates",
  "strategist.cancelAction": "a strategist action's status",
  "strategist.createSession": "a staff member's chat session with the strategist",
  "strategist.sendTurn": "a paid strategist turn (the tenant's wallet, a staff-started operation)",
  "sites.create": "a site and its connector token (no API key, scope or right)",
  "sites.rotate": "a site's connector token (no API key, scope or right)",
  "sites.revoke": "a site (no API key, scope or right)",
};

/** A member of the walk: who acts, with which rights. */
type Staff = { id: string; email: string; name: string };

/** The tenant a walk runs in, and what its steps refer to by name. */
interface World {
  tenantId: string;
  owner: Staff;
  member: Staff;
  memberRights: readonly Right[];
  /** Membership ids of the owner and of a member who issued a key and then lost every right. */
  ownerMembership: string;
  otherMembership: string;
  /**
   * I: full, active; C: role content; J: suspended; F: the fixture's, no owner; N: made by a step. Made by
   * an operator, no owner, each with an operator's key, reading no personal data only because the RU rule's
   * transfer facts fail: K (pii_country KZ), L (no legal basis), W (no allowlist on it or its key).
   */
  integrations: Record<string, string>;
  /** Keys by name, with what each read before the walk (new keys: nothing). */
  keys: Map<string, { key: string; keyId: string; before: Scope[] }>;
  /** The key the member last got (issued or rolled). */
  last?: string;
}

/** One change a step makes, through the console's procedures, as the walking member. */
type Step = { name: string; run(db: Db, w: World): Promise<unknown> };

const SETTINGS = { scopes: [...SCOPES], piiCountry: "RU", legalBasis: "contract", ipAllowlist: ["127.0.0.1"] };
const NO_PII_SCOPES = SCOPES.filter((s) => rightFor(s) === null);
const by = (db: Db, w: World) => createCaller({ db, staff: w.member });
const update = (name: string, i: string, patch: { role: string; scopes?: Scope[] }): Step => ({
  name,
  run: (db, w) =>
    by(db, w).integrations.update({
      tenantId: w.tenantId,
      integrationId: w.integrations[i],
      name: `Integration ${i}`,
      ...SETTINGS,
      ...patch,
    }),
});
const issue = (i: string): Step => ({
  name: `issueKey ${i}`,
  run: async (db, w) => {
    const k = await by(db, w).integrations.issueKey({
      tenantId: w.tenantId,
      integrationId: w.integrations[i],
      name: null,
      mode: "live",
      expiresAt: null,
      ipAllowlist: null,
    });
    w.keys.set(`issued ${k.keyId}`, { ...k, before: [] });
    w.last = `issued ${k.keyId}`;
  },
});
const roll = (k: string): Step => ({
  name: `rollKey ${k}`,
  run: async (db, w) => {
    const old = w.keys.get(k === "last" ? (w.last ?? "") : k);
    if (!old) return;
    const r = await by(db, w).integrations.rollKey({ tenantId: w.tenantId, keyId: old.keyId, delay: "1h" });
    w.keys.set(`rolled ${r.keyId}`, { key: r.key, keyId: r.keyId, before: [] });
    w.last = `rolled ${r.keyId}`;
  },
});
const status = (i: string, s: "active" | "suspended" | "revoked"): Step => ({
  name: `setStatus ${i} ${s}`,
  run: (db, w) =>
    by(db, w).integrations.setStatus({ tenantId: w.tenantId, integrationId: w.integrations[i], status: s }),
});

/**
 * Changes of the RU rule's transfer facts that let an operator's key read personal data: each widens by
 * design, so only a member holding the right of every scope of the integration gets it through.
 */
const TRANSFER_STEPS = [
  update("update K pii_country KZ → RU", "K", { role: "full" }),
  update("update L legal basis none → contract", "L", { role: "full" }),
  update("update W allowlist none → narrow", "W", { role: "full" }),
];

/** The walk: for each procedure, the changes a member may try with it. */
const WALK: Record<string, Step[]> = {
  "integrations.create": [
    {
      name: "create N with every scope, role full",
      run: async (db, w) => {
        const r = await by(db, w).integrations.create({ tenantId: w.tenantId, name: "N", role: "full", ...SETTINGS });
        w.integrations.N = r.id;
      },
    },
  ],
  "integrations.update": [
    update("update I role content", "I", { role: "content" }),
    update("update I role full", "I", { role: "full" }),
    update("update I scopes without personal data", "I", { role: "full", scopes: NO_PII_SCOPES }),
    update("update C role full", "C", { role: "full" }),
    update("update F role content", "F", { role: "content" }),
    update("update F role full", "F", { role: "full" }),
    update("update N role content", "N", { role: "content" }),
    ...TRANSFER_STEPS,
  ],
  "integrations.setStatus": [
    status("I", "suspended"),
    status("I", "active"),
    status("J", "active"),
    status("C", "revoked"),
  ],
  "integrations.issueKey": [issue("I"), issue("C"), issue("J"), issue("F"), issue("N")],
  "integrations.rollKey": [roll("KI"), roll("KC"), roll("KF"), roll("last")],
  "integrations.renameKey": [
    {
      name: "renameKey KC",
      run: (db, w) =>
        by(db, w).integrations.renameKey({ tenantId: w.tenantId, keyId: w.keys.get("KC")!.keyId, name: "x" }),
    },
  ],
  "integrations.revokeKey": [
    {
      name: "revokeKey KI",
      run: (db, w) => by(db, w).integrations.revokeKey({ tenantId: w.tenantId, keyId: w.keys.get("KI")!.keyId }),
    },
  ],
  "wallet.setDailyLimit": [
    {
      name: "setDailyLimit I",
      run: (db, w) =>
        by(db, w).wallet.setDailyLimit({ tenantId: w.tenantId, integrationId: w.integrations.I, limit: "10" }),
    },
  ],
  "operations.setChannelAi": [
    {
      name: "setChannelAi I",
      run: (db, w) =>
        by(db, w).operations.setChannelAi({
          tenantId: w.tenantId,
          integrationId: w.integrations.I,
          aiDailyLimit: 5,
          aiEnabled: false,
        }),
    },
  ],
  "team.setRights": [
    {
      name: "setRights of the key-issuing member to the walker's rights",
      run: (db, w) =>
        by(db, w).team.setRights({ tenantId: w.tenantId, memberId: w.otherMembership, rights: [...w.memberRights] }),
    },
    {
      name: "setRights of the key-issuing member to every right",
      run: (db, w) =>
        by(db, w).team.setRights({ tenantId: w.tenantId, memberId: w.otherMembership, rights: [...RIGHTS] }),
    },
    {
      name: "setRights of the integrations' owner to none",
      run: (db, w) => by(db, w).team.setRights({ tenantId: w.tenantId, memberId: w.ownerMembership, rights: [] }),
    },
  ],
};
const STEPS = Object.values(WALK).flat();

/**
 * What a key reads now: its effective scopes as authentication grants them, less the personal-data scopes
 * the RU-cell transfer rule refuses it (as `GET /me` shows and every personal-data route enforces); nothing
 * when refused.
 */
async function reach(db: Db, key: string): Promise<Scope[]> {
  return authenticate(db, `Bearer ${key}`, "127.0.0.1").then(
    (c) =>
      grantedScopes(c.scopes, c.actor.cell, {
        country: c.integration.piiCountry,
        legalBasis: c.integration.legalBasis,
        ipAllowlist: c.key.ipAllowlist,
      }),
    () => [],
  );
}

/** Every scope a key gained over what it read before the walk that the member's rights do not cover. */
async function widenings(db: Db, w: World, path: string): Promise<string[]> {
  const found: string[] = [];
  for (const [name, k] of w.keys) {
    for (const s of await reach(db, k.key)) {
      const right = rightFor(s);
      if (!k.before.includes(s) && right && !w.memberRights.includes(right))
        found.push(`${path}: key ${name} gained ${s} (needs ${right})`);
    }
  }
  return found;
}

const ROLLBACK = new Error("roll back the walk");
/** Runs `body` in a transaction that is always rolled back. */
async function rolledBack(db: Db, body: (tx: Db) => Promise<void>): Promise<void> {
  await db
    .transaction(async (tx) => {
      await body(tx);
      throw ROLLBACK;
    })
    .catch((e: unknown) => {
      if (e !== ROLLBACK) throw e;
    });
}

/**
 * Runs `body` on the same transaction handle inside a savepoint that is always rolled back: one handle
 * for the whole walk, so the key query is prepared once per walk rather than once per pair.
 */
async function undone(tx: Db, name: string, body: () => Promise<void>): Promise<void> {
  await tx.execute(sql.raw(`savepoint ${name}`));
  try {
    await body();
  } finally {
    await tx.execute(sql.raw(`rollback to savepoint ${name}`));
  }
}

/**
 * A step's outcome: true when it went through (then its pairs are walked), false when refused with a
 * catalog error (a server error fails the walk).
 */
async function attempt(step: Step, db: Db, w: World): Promise<boolean> {
  try {
    await step.run(db, w);
    return true;
  } catch (e) {
    if (!(e instanceof TRPCError) || e.code === "INTERNAL_SERVER_ERROR") throw e;
    return false;
  }
}

let db: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => db.drop());

/** A tenant in the walk's starting state, the walking member holding `memberRights`. */
async function world(memberRights: readonly Right[]): Promise<World> {
  const t = await makeTenant(db.db);
  const staff = async (rights: Right[]): Promise<Staff> => {
    const id = await makeStaff(db.db, t.tenantId, rights);
    return { id, email: `${id}@walk.example`, name: "Walker" };
  };
  const owner = await staff([...RIGHTS]);
  const member = await staff([...memberRights]);
  const other = await staff([...RIGHTS]);
  const o = createCaller({ db: db.db, staff: owner }).integrations;
  const make = async (name: string, role: string) =>
    (await o.create({ tenantId: t.tenantId, name: `Integration ${name}`, role, ...SETTINGS })).id;
  const ints: Record<string, string> = {
    I: await make("I", "full"),
    C: await make("C", "content"),
    J: await make("J", "full"),
    F: t.integrationId,
  };
  const byOperator = async (name: string, facts: { piiCountry: string; ipAllowlist: string[] | null }) => {
    const i = await createIntegration(db.db, t.tenantId, {
      name: `Integration ${name}`,
      scopes: [...SCOPES],
      legalBasis: "contract",
      ...facts,
    });
    ints[name] = i.id;
    return issueKey(db.db, { integrationId: i.id, ipAllowlist: facts.ipAllowlist });
  };
  const operatorKeys = {
    KK: await byOperator("K", { piiCountry: "KZ", ipAllowlist: ["127.0.0.1"] }),
    KL: await byOperator("L", { piiCountry: "RU", ipAllowlist: ["127.0.0.1"] }),
    KW: await byOperator("W", { piiCountry: "RU", ipAllowlist: null }),
  };
  // an integration from before the RU rule asked for the legal basis at connection
  await db.db.update(integrations).set({ legalBasis: null }).where(eq(integrations.id, ints.L));
  const keyOf = (s: Staff, i: string) =>
    createCaller({ db: db.db, staff: s }).integrations.issueKey({
      tenantId: t.tenantId,
      integrationId: ints[i],
      name: null,
      mode: "live",
      expiresAt: null,
      ipAllowlist: null,
    });
  const keys = new Map<string, { key: string; keyId: string; before: Scope[] }>();
  for (const [name, i] of [
    ["KI", "I"],
    ["KC", "C"],
    ["KJ", "J"],
  ] as const)
    keys.set(name, { ...(await keyOf(owner, i)), before: [] });
  keys.set("KP", { ...(await keyOf(other, "I")), before: [] });
  keys.set("KF", { key: t.key, keyId: t.keyId, before: [] });
  for (const [name, k] of Object.entries(operatorKeys)) keys.set(name, { key: k.key, keyId: k.keyId, before: [] });
  await o.setStatus({ tenantId: t.tenantId, integrationId: ints.J, status: "suspended" });
  await setMembership(db.db, t.tenantId, other.id, { rights: [] });
  for (const k of keys.values()) k.before = await reach(db.db, k.key);
  const membershipOf = async (s: Staff) =>
    (
      await db.db
        .select({ id: memberships.id })
        .from(memberships)
        .where(and(eq(memberships.tenantId, t.tenantId), eq(memberships.staffUserId, s.id)))
    )[0].id;
  return {
    tenantId: t.tenantId,
    owner,
    member,
    memberRights,
    ownerMembership: await membershipOf(owner),
    otherMembership: await membershipOf(other),
    integrations: ints,
    keys,
  };
}

const copy = (w: World): World => ({ ...w, integrations: { ...w.integrations }, keys: new Map(w.keys) });

describe("the console procedures that change integrations and keys", () => {
  it("are all walked below, and every other mutation is listed as changing none of them", () => {
    const procedures = (appRouter._def as unknown as { procedures: Record<string, { _def: { type: string } }> })
      .procedures;
    const mutations = Object.entries(procedures)
      .filter(([, p]) => p._def.type === "mutation")
      .map(([name]) => name)
      .sort();
    expect(mutations.length).toBeGreaterThan(20);
    const known = [...Object.keys(WALK), ...Object.keys(UNRELATED)].sort();
    // A new mutation: add it to WALK if it may change an integration, a key or a right that cuts keys.
    expect(mutations).toEqual(known);
    for (const name of Object.keys(WALK)) expect(name in UNRELATED).toBe(false);
  });
});

/**
 * The members walked: lacking each right in turn, and lacking every right that guards a scope. A member
 * who lacks only rights that guard no scope (`topup_wallet`, `manage_team`) holds the right of every scope,
 * so no key can exceed their rights whatever they do: they walk single changes (each must answer without
 * a server error), the others every ordered pair.
 */
const GUARDING = RIGHTS.filter((r) => SCOPES.some((s) => rightFor(s) === r));
const PROFILES: [string, Right[]][] = [
  ...RIGHTS.map((r): [string, Right[]] => [`without ${r}`, RIGHTS.filter((x) => x !== r)]),
  [`without ${GUARDING.join(" and ")}`, RIGHTS.filter((x) => !GUARDING.includes(x))],
];

describe.each(PROFILES)("a member %s", (_label, memberRights) => {
  const vacuous = GUARDING.every((r) => memberRights.includes(r));
  it(
    vacuous
      ? "holds the right of every scope: each single change answers, and no key exceeds their rights"
      : "cannot make any key read more than their rights cover, in any pair of changes",
    async () => {
      const w = await world(memberRights);
      const found: string[] = [];
      let pairs = 0;
      let singles = 0;
      await rolledBack(db.db, async (tx) => {
        // The walk runs the key query thousands of times unprepared (a transaction's statements are not kept
        // prepared): planning its eleven relations was five sixths of the walk's time. Joined in the order
        // written, the query answers the same rows; the setting ends with the transaction.
        await tx.execute(sql.raw("set local join_collapse_limit = 1"));
        for (const first of STEPS) {
          await undone(tx, "walk_first", async () => {
            const w1 = copy(w);
            if (!(await attempt(first, tx, w1))) return;
            singles++;
            found.push(...(await widenings(tx, w1, first.name)));
            if (vacuous) return;
            for (const second of STEPS) {
              await undone(tx, "walk_second", async () => {
                const w2 = copy(w1);
                if (!(await attempt(second, tx, w2))) return;
                pairs++;
                found.push(...(await widenings(tx, w2, `${first.name} → ${second.name}`)));
              });
            }
          });
        }
      });
      expect(found).toEqual([]);
      // the walk did walk: a member with manage_integrations gets most changes through
      if (memberRights.includes("manage_integrations")) {
        expect(singles).toBeGreaterThan((STEPS.length - TRANSFER_STEPS.length) / 2);
        if (!vacuous) expect(pairs).toBeGreaterThan(STEPS.length * 5);
      }
    },
    300_000,
  );
});
