import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { articles, events, sites, tenants, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import { hashSecret } from "@/server/services/keys/key-format";
import { setPreview } from "@/server/services/tenants/previews";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { createCaller } from "./root";

// The console's Sites and Articles (issue 71 item 6). Sites: every member lists them; adding one, rotating
// and revoking its connector token need manage_integrations; the token is answered once and only its hash
// is stored. Articles: any member edits under the etag (a stale one is PRECONDITION_FAILED, nothing
// written), approves and publishes through the API's services as a StaffActor, and the events go out
// (recorded, fanned out to subscriptions, announced after the commit). Runs on PGlite and PostgreSQL.

type Staff = { id: string; email: string; name: string };
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let member: Staff;
let admin: Staff;
const as = (s: Staff) => createCaller({ db: db.db, staff: s });
const code = (e: unknown) => (e instanceof TRPCError ? e.code : e);
const siteRow = async (id: string) => (await db.db.select().from(sites).where(eq(sites.id, id)))[0]!;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  member = { id: await makeStaff(db.db, t.tenantId, []), email: "m@x.example", name: "M" };
  admin = { id: await makeStaff(db.db, t.tenantId, ["manage_integrations"]), email: "a@x.example", name: "A" };
});
afterAll(async () => db.drop());

describe("sites in the console", () => {
  it("need manage_integrations to add, rotate and revoke; the token is shown once and stored hashed", async () => {
    const tenantId = t.tenantId;
    const refused = await as(member)
      .sites.create({ tenantId, domain: "blog.example.com", draftsOnly: true })
      .catch(code);
    expect(refused).toBe("FORBIDDEN");
    const bad = await as(admin)
      .sites.create({ tenantId, domain: "https://blog.example.com/x" })
      .catch((e: TRPCError) => [e.code, e.message]);
    expect(bad).toEqual(["BAD_REQUEST", expect.stringMatching(/host name/)]);

    const made = await as(admin).sites.create({ tenantId, domain: "Blog.Example.com", draftsOnly: true });
    expect(made.connectorToken).toMatch(/^sct_[A-Za-z0-9_-]{43}$/);
    let row = await siteRow(made.siteId);
    expect([row.domain, row.draftsOnly, row.connectorTokenHash]).toEqual([
      "blog.example.com",
      true,
      hashSecret(made.connectorToken),
    ]);
    expect(JSON.stringify(row)).not.toContain(made.connectorToken);
    // The list never carries a token; a member without the right sees it too (to pick it when publishing).
    const listed = await as(member).sites.list({ tenantId });
    expect(listed).toEqual([
      { id: made.siteId, domain: "blog.example.com", status: "not_linked", drafts_only: true, last_seen_at: null },
    ]);

    expect(await as(member).sites.rotate({ tenantId, id: made.siteId }).catch(code)).toBe("FORBIDDEN");
    const rotated = await as(admin).sites.rotate({ tenantId, id: made.siteId });
    expect(rotated.connectorToken).not.toBe(made.connectorToken);
    row = await siteRow(made.siteId);
    expect(row.connectorTokenHash).toBe(hashSecret(rotated.connectorToken));

    expect(await as(member).sites.revoke({ tenantId, id: made.siteId }).catch(code)).toBe("FORBIDDEN");
    expect(await as(admin).sites.revoke({ tenantId, id: made.siteId })).toEqual({ revoked: true });
    row = await siteRow(made.siteId);
    expect(row.revokedAt).not.toBeNull();
    expect([made.connectorToken, rotated.connectorToken].map(hashSecret)).not.toContain(row.connectorTokenHash);
    expect(await as(admin).sites.list({ tenantId })).toEqual([]);
    expect(await as(admin).sites.rotate({ tenantId, id: made.siteId }).catch(code)).toBe("NOT_FOUND");
  });
});

describe("articles in the console", () => {
  it("edits, approves and publishes with target none; the events go out after the commit", async () => {
    const tenantId = t.tenantId;
    const [a] = await db.db
      .insert(articles)
      .values({ tenantId, title: "Chairs", status: "draft", bodyHtml: "<p>Four chairs.</p>", updatedAt: new Date() })
      .returning();
    await db.db.insert(webhookSubscriptions).values({
      tenantId,
      integrationId: t.integrationId,
      url: "https://hooks.example.com/a",
      events: ["article.*"],
      secretEnc: sealSecret(newSigningSecret()),
    });
    const announced: string[] = [];
    const off = registerWorkListener({
      deliveriesDue: (ids) => void announced.push(...ids),
      exchangeResumed: () => {},
    });
    try {
      const page = await as(member).articles.list({ tenantId, status: "draft" });
      expect(page.articles.map((x) => x.id)).toContain(a!.id);
      const read = await as(member).articles.get({ tenantId, id: a!.id });
      expect([read.article.content, read.version, read.history]).toEqual(["<p>Four chairs.</p>", 1, []]);

      const edited = await as(member).articles.update({
        tenantId,
        id: a!.id,
        etag: read.etag,
        change: {
          title: "Chairs for a small office",
          slug: "chairs-small-office",
          meta_title: "Office chairs",
          meta_description: "Four chairs that fit.",
          content: '<h2>Fit</h2><p onclick="x()">Four <strong>chairs</strong>.</p><script>alert(1)</script>',
        },
      });
      expect(edited.etag).not.toBe(read.etag);
      expect(edited.article).toMatchObject({
        title: "Chairs for a small office",
        slug: "chairs-small-office",
        meta_title: "Office chairs",
        meta_description: "Four chairs that fit.",
        status: "draft",
        content: "<h2>Fit</h2><p>Four <strong>chairs</strong>.</p>",
      });
      // A save on the version read before someone else's change is refused and writes nothing.
      const stale = await as(admin)
        .articles.update({ tenantId, id: a!.id, etag: read.etag, change: { title: "Late" } })
        .catch(code);
      expect(stale).toBe("PRECONDITION_FAILED");

      expect((await as(member).articles.approve({ tenantId, id: a!.id })).article.status).toBe("approved");
      const published = await as(member).articles.publish({ tenantId, id: a!.id, target: "none" });
      expect([published.article.status, published.article.publication]).toEqual([
        "handed_off",
        { target: "none", state: "queued", published_url: null, error: null },
      ]);
      const now = await as(member).articles.get({ tenantId, id: a!.id });
      expect([now.article.title, now.version, now.article.status]).toEqual([
        "Chairs for a small office",
        4,
        "handed_off",
      ]);
      const ready = await db.db
        .select()
        .from(events)
        .where(and(eq(events.tenantId, tenantId), eq(events.type, "article.ready")));
      expect(ready.map((e) => [e.livemode, e.data])).toEqual([[true, { type: "article", article_id: a!.id }]]);
      const deliveries = await db.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.eventId, ready[0]!.id));
      expect(deliveries).toHaveLength(1);
      expect(announced).toEqual([deliveries[0]!.id]);
    } finally {
      off();
    }
  });

  it("publishes to a working site as a job of the article's version, shown in the history", async () => {
    const tenantId = t.tenantId;
    const [a] = await db.db
      .insert(articles)
      .values({ tenantId, title: "Desks", status: "approved", bodyHtml: "<p>Desks.</p>", updatedAt: new Date() })
      .returning();
    const s = await as(admin).sites.create({ tenantId, domain: "shop.example.com", draftsOnly: true });
    const notLinked = await as(member)
      .articles.publish({ tenantId, id: a!.id, target: "connector", site_id: s.siteId, publish_mode: "publish" })
      .catch(code);
    expect(notLinked).toBe("CONFLICT");
    await db.db.update(sites).set({ lastSeenAt: new Date() }).where(eq(sites.id, s.siteId));
    await as(member).articles.publish({
      tenantId,
      id: a!.id,
      target: "connector",
      site_id: s.siteId,
      publish_mode: "publish",
    });
    const { history, article } = await as(member).articles.get({ tenantId, id: a!.id });
    expect(article.publication).toEqual({ target: "connector", state: "queued", published_url: null, error: null });
    // The drafts-only ceiling makes the publish a draft.
    expect(history.map((h) => [h.version, h.state, h.publishMode, h.siteDomain, h.publishedUrl, h.error])).toEqual([
      [1, "queued", "draft", "shop.example.com", null, null],
    ]);
  });
});

describe("the console's Test mode", () => {
  it("shows and changes only the sandbox's sites and articles", async () => {
    const tenantId = t.tenantId;
    await setPreview(db.db, tenantId, "test-mode", true);
    // Marked seeded: the switch's first use would seed the sandbox's sample data, which this test does not need.
    await db.db.update(tenants).set({ sandboxSeededAt: new Date() }).where(eq(tenants.id, tenantId));
    const test = createCaller({ db: db.db, staff: admin, testMode: true });
    const [sandboxArticle] = await db.db
      .insert(articles)
      .values({ tenantId, livemode: false, title: "Sandbox", bodyHtml: "<p>x</p>", updatedAt: new Date() })
      .returning();
    const made = await test.sites.create({ tenantId, domain: "sandbox.example.com" });
    expect((await siteRow(made.siteId)).livemode).toBe(false);
    expect((await test.sites.list({ tenantId })).map((x) => x.domain)).toEqual(["sandbox.example.com"]);
    expect((await as(admin).sites.list({ tenantId })).map((x) => x.domain)).not.toContain("sandbox.example.com");
    expect((await test.articles.list({ tenantId })).articles.map((x) => x.title)).toEqual(["Sandbox"]);
    expect(await as(admin).articles.get({ tenantId, id: sandboxArticle!.id }).catch(code)).toBe("NOT_FOUND");
    await test.articles.approve({ tenantId, id: sandboxArticle!.id });
    await test.articles.publish({ tenantId, id: sandboxArticle!.id, target: "none" });
    const ready = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, "article.ready"), eq(events.livemode, false)));
    expect(ready.map((e) => e.data)).toEqual([{ type: "article", article_id: sandboxArticle!.id }]);
  });
});
