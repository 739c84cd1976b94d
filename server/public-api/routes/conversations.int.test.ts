import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversations, disclosures, messageAttachments, messages } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { serveAttachment } from "@/server/public-api/side-routes";
import { signAttachmentLink } from "@/server/services/conversations/attachment-links";
import { setStorageRoot } from "@/server/services/storage/file-store";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0);
const at = (min: number) => new Date(T0 + min * 60_000);

/** Conversations of `t`, by name: visible ones on several channels, and the hidden kinds. */
const conv: Record<string, string> = {};
/** Messages of conversation `a`, by name. */
const msg: Record<string, string> = {};
let storageDir: string;

async function addConversation(
  name: string,
  o: Partial<typeof conversations.$inferInsert>,
  owner = t,
): Promise<string> {
  const [c] = await db.db
    .insert(conversations)
    .values({
      tenantId: owner.tenantId,
      channelType: "website",
      status: "open",
      mode: "ai",
      createdAt: at(0),
      updatedAt: at(0),
      ...o,
    })
    .returning({ id: conversations.id });
  conv[name] = c.id;
  return c.id;
}

async function addMessage(
  name: string,
  o: Partial<typeof messages.$inferInsert> & { conversationId: string },
): Promise<string> {
  const [m] = await db.db
    .insert(messages)
    .values({ tenantId: t.tenantId, sender: "customer", content: name, ...o })
    .returning({ id: messages.id });
  msg[name] = m.id;
  return m.id;
}

const get = (p: string, key = t.key) => call("GET", p, { key });
const journal = () => db.db.select().from(disclosures).where(eq(disclosures.tenantId, t.tenantId));

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  storageDir = await mkdtemp(path.join(tmpdir(), "storage-"));
  setStorageRoot(storageDir);
  await addConversation("a", {
    channelId: t.channelId,
    channelType: "api",
    externalCustomerId: "crm-1",
    updatedAt: at(10),
    language: "ru",
  });
  await addConversation("b", {
    channelType: "telegram",
    externalCustomerId: "tg-should-not-leak",
    updatedAt: at(20),
    status: "handoff_pending",
    mode: "operator",
  });
  await addConversation("c", { channelType: "website", updatedAt: at(20), status: "resolved" });
  await addConversation("d", { channelType: "website", updatedAt: at(30) });
  await addConversation("mailbox", { kind: "personal_mailbox", updatedAt: at(15) });
  await addConversation("cabinet", { kind: "student_cabinet", updatedAt: at(16) });
  await addConversation("foreign", { updatedAt: at(17) }, other);

  const a = conv.a;
  await addMessage("m1", { conversationId: a, createdAt: at(1) });
  await addMessage("note", {
    conversationId: a,
    sender: "operator",
    internal: true,
    content: "Internal: VIP",
    createdAt: at(2),
  });
  await addMessage("m2", { conversationId: a, sender: "ai", createdAt: at(3) });
  await addMessage("gone", {
    conversationId: a,
    content: "my phone is +79001234567",
    // Deleted a day before the run, not at T0: the 30 days of tombstones count from the real clock.
    deletedAt: new Date(Date.now() - 86_400_000),
    createdAt: at(4),
  });
  await addMessage("photo", { conversationId: a, contentType: "image", content: null, createdAt: at(5) });
  await addMessage("m3", { conversationId: a, createdAt: at(5) }); // same moment as "photo": ordered by id
  await addMessage("ancient", {
    conversationId: a,
    deletedAt: new Date(Date.now() - 31 * 86_400_000),
    createdAt: at(0.5),
  });
  await db.db.insert(messageAttachments).values([
    {
      tenantId: t.tenantId,
      messageId: msg.photo,
      fileName: "photo 1.jpg",
      mimeType: "image/jpeg",
      sizeBytes: 5,
      storagePath: `${t.tenantId}/attachments/photo-1.jpg`,
      externalUrl: "https://api.telegram.org/file/bot-secret/photo-1.jpg",
    },
    {
      tenantId: t.tenantId,
      messageId: msg.gone,
      fileName: "gone.jpg",
      mimeType: "image/jpeg",
      sizeBytes: 5,
      storagePath: `${t.tenantId}/attachments/gone.jpg`,
    },
  ]);
  await mkdir(path.join(storageDir, t.tenantId, "attachments"), { recursive: true });
  await writeFile(path.join(storageDir, t.tenantId, "attachments", "photo-1.jpg"), "JPEG!");
});
afterAll(async () => db.drop());

describe("GET /conversations", () => {
  it("lists visible conversations ascending by (updated_at, id), never mailbox, cabinet or foreign ones", async () => {
    const r = await get("/conversations");
    expect(r.status).toBe(200);
    const ids = r.body.data.map((c: { id: string }) => c.id);
    const [b, c] = [conv.b, conv.c].sort();
    expect(ids).toEqual([conv.a, b, c, conv.d]);
    expect(r.body.next_cursor).toBeNull();
    expect(r.headers.get("cache-control")).toBe("private, no-store");
  });

  it("answers the Conversation fields; external_customer_id only for channel api", async () => {
    const r = await get("/conversations");
    const byId = new Map(r.body.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(conv.a)).toEqual({
      id: conv.a,
      channel: "api",
      contact_id: null,
      external_customer_id: "crm-1",
      status: "open",
      mode: "ai",
      language: "ru",
      created_at: at(0).toISOString(),
      updated_at: at(10).toISOString(),
    });
    expect(byId.get(conv.b)).toMatchObject({
      channel: "telegram",
      external_customer_id: null,
      status: "handoff_pending",
      mode: "operator",
    });
    expect(r.text).not.toContain("tg-should-not-leak");
  });

  it("filters by channel, status and mode", async () => {
    expect((await get("/conversations?channel=website")).body.data.map((c: { id: string }) => c.id).sort()).toEqual(
      [conv.c, conv.d].sort(),
    );
    expect((await get("/conversations?status=resolved")).body.data.map((c: { id: string }) => c.id)).toEqual([conv.c]);
    expect((await get("/conversations?mode=operator")).body.data.map((c: { id: string }) => c.id)).toEqual([conv.b]);
    const bad = await get("/conversations?mode=human");
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe("/mode");
  });

  it("takes updated_after strictly later, with a zone only", async () => {
    const r = await get(`/conversations?updated_after=${encodeURIComponent(at(20).toISOString())}`);
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual([conv.d]);
    const offset = await get(`/conversations?updated_after=${encodeURIComponent("2026-11-01T13:19:59+03:00")}`); // 10:19:59Z
    expect(offset.body.data).toHaveLength(3);
    const noZone = await get("/conversations?updated_after=2026-11-01T10:00:00");
    expect(noZone.status).toBe(422);
    expect(noZone.body.errors[0].field).toBe("/updated_after");
  });

  it("accepts include_deleted and returns the same conversations", async () => {
    const plain = await get("/conversations");
    const withDeleted = await get("/conversations?include_deleted=true");
    expect(withDeleted.status).toBe(200);
    expect(withDeleted.body.data).toEqual(plain.body.data);
  });

  it("walks every conversation exactly once by cursor; a cursor is bound to its filters", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: { data: { id: string }[]; next_cursor: string | null } } = await get(
        `/conversations?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...r.body.data.map((c) => c.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual((await get("/conversations")).body.data.map((c: { id: string }) => c.id));
    const first = await get("/conversations?limit=1&channel=website");
    const changed = await get(
      `/conversations?limit=1&channel=api&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    expect(changed.status).toBe(422);
    expect(changed.body.errors[0].field).toBe("/cursor");
  });

  it("journals every returned id with the key and request id; an empty page journals nothing", async () => {
    const before = (await journal()).length;
    const r = await get("/conversations?channel=api");
    const rows = (await journal()).filter((j) => j.requestId === r.headers.get("x-request-id"));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      integrationId: t.integrationId,
      route: "GET /conversations",
      resourceType: "conversation",
      resourceIds: [conv.a],
    });
    expect(rows[0].apiKeyId).not.toBeNull();
    await get("/conversations?channel=nothing-here");
    expect(await journal()).toHaveLength(before + 1);
  });
});

describe("GET /conversations/{id}", () => {
  it("answers a visible conversation, journaled and not cacheable", async () => {
    const r = await get(`/conversations/${conv.a}`);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(conv.a);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(
      (await journal()).some((j) => j.requestId === r.headers.get("x-request-id") && j.resourceIds[0] === conv.a),
    ).toBe(true);
  });

  it("answers mailbox, cabinet, foreign and missing ids with the same 404, and a non-uuid id with 404", async () => {
    const bodies = [];
    for (const id of [conv.mailbox, conv.cabinet, conv.foreign, crypto.randomUUID()]) {
      const r = await get(`/conversations/${id}`);
      expect(r.status, id).toBe(404);
      expect(r.body.code).toBe("not_found");
      bodies.push({ ...r.body, request_id: null });
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    const notUuid = await get("/conversations/not-a-uuid");
    expect([notUuid.status, notUuid.body.code]).toEqual([404, "not_found"]);
  });
});

describe("GET /conversations/{id}/messages", () => {
  it("answers messages oldest first by (created_at, id), without internal notes or deleted messages", async () => {
    const r = await get(`/conversations/${conv.a}/messages`);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    const [p, m3] = [msg.photo, msg.m3].sort();
    expect(r.body.data.map((m: { id: string }) => m.id)).toEqual([msg.m1, msg.m2, p, m3]);
    expect(r.text).not.toContain("Internal: VIP");
    expect(r.body.data[0]).toEqual({
      id: msg.m1,
      conversation_id: conv.a,
      sender: "customer",
      content_type: "text",
      content: "m1",
      attachments: [],
      deleted: false,
      created_at: at(1).toISOString(),
    });
  });

  it("returns deleted messages as tombstones with include_deleted=true, within 30 days of deletion", async () => {
    const r = await get(`/conversations/${conv.a}/messages?include_deleted=true`);
    const tomb = r.body.data.find((m: { id: string }) => m.id === msg.gone);
    expect(tomb).toEqual({
      id: msg.gone,
      conversation_id: conv.a,
      sender: "customer",
      content_type: "text",
      content: null,
      attachments: [],
      deleted: true,
      created_at: at(4).toISOString(),
    });
    expect(r.text).not.toContain("+79001234567");
    expect(r.body.data.some((m: { id: string }) => m.id === msg.ancient)).toBe(false);
    expect(r.body.data).toHaveLength(5);
  });

  it("gives attachments as temporary signed links of the app, never the messenger's address", async () => {
    const r = await get(`/conversations/${conv.a}/messages`);
    const photo = r.body.data.find((m: { id: string }) => m.id === msg.photo);
    expect(photo.content).toBeNull();
    expect(photo.attachments).toHaveLength(1);
    const a = photo.attachments[0];
    expect(a).toMatchObject({ file_name: "photo 1.jpg", content_type: "image/jpeg", size_bytes: 5 });
    expect(a.url).toMatch(
      /^https:\/\/api\.example\.ru\/files\/attachments\/[0-9a-f-]{36}\?expires=\d+&signature=[\w-]+$/,
    );
    expect(Date.parse(a.expires_at) - Date.now()).toBeGreaterThan(10 * 60_000);
    expect(r.text).not.toContain("telegram.org");

    const u = new URL(a.url);
    const id = u.pathname.split("/").pop()!;
    const file = await serveAttachment(id, u.searchParams.get("expires"), u.searchParams.get("signature"));
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    expect(file.headers.get("cache-control")).toBe("private, no-store");
    expect(await file.text()).toBe("JPEG!");

    const tampered = await serveAttachment(
      id,
      String(Number(u.searchParams.get("expires")) + 60),
      u.searchParams.get("signature"),
    );
    expect(tampered.status).toBe(403);
    // A signature whose last character differs only in base64's spare bits decodes to the same bytes: refused.
    const sig = u.searchParams.get("signature")!;
    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = sig.slice(0, -1) + B64[B64.indexOf(sig[sig.length - 1]!) ^ 1];
    expect(Buffer.from(twin, "base64url")).toEqual(Buffer.from(sig, "base64url"));
    expect((await serveAttachment(id, u.searchParams.get("expires"), twin)).status).toBe(403);
    setClock(() => Date.parse(a.expires_at) + 1000);
    try {
      expect((await serveAttachment(id, u.searchParams.get("expires"), u.searchParams.get("signature"))).status).toBe(
        403,
      );
    } finally {
      setClock(undefined);
    }
  });

  it("gives each message its first stored file by position, and none for a messenger-only file", async () => {
    // Its own conversation, made after the list tests above have run, so their pages stay as they are.
    const files = await addConversation("files", { updatedAt: at(40) });
    const two = await addMessage("two files", { conversationId: files, contentType: "image", createdAt: at(1) });
    const remote = await addMessage("remote only", { conversationId: files, contentType: "image", createdAt: at(2) });
    const file = (messageId: string, fileName: string, position: number, stored: boolean) => ({
      tenantId: t.tenantId,
      messageId,
      fileName,
      mimeType: "image/png",
      sizeBytes: 3_000_000_000, // beyond 2^31: a bigint column read as a number
      position,
      storagePath: stored ? `${t.tenantId}/attachments/${fileName}` : null,
      externalUrl: `https://files.example.com/${fileName}`,
    });
    await db.db
      .insert(messageAttachments)
      .values([
        file(two, "second.png", 2, true),
        file(two, "messenger.png", 0, false),
        file(two, "first.png", 1, true),
        file(remote, "remote.png", 0, false),
      ]);
    const r = await get(`/conversations/${files}/messages`);
    expect(r.status).toBe(200);
    const [a, b] = r.body.data;
    expect(a.id).toBe(two);
    expect(a.attachments).toHaveLength(1);
    expect(a.attachments[0]).toMatchObject({
      file_name: "first.png",
      content_type: "image/png",
      size_bytes: 3_000_000_000,
    });
    expect(b).toMatchObject({ id: remote, attachments: [], deleted: false });
    expect(r.text).not.toContain("files.example.com");
  });

  it("stops serving a deleted message's file even through a link given before", async () => {
    const [m] = await db.db
      .insert(messages)
      .values({ tenantId: t.tenantId, conversationId: conv.d, sender: "customer", contentType: "file", content: null })
      .returning();
    const [f] = await db.db
      .insert(messageAttachments)
      .values({
        tenantId: t.tenantId,
        messageId: m.id,
        fileName: "doc.pdf",
        mimeType: "application/pdf",
        sizeBytes: 5,
        storagePath: `${t.tenantId}/attachments/photo-1.jpg`,
      })
      .returning();
    const link = new URL(
      (await get(`/conversations/${conv.d}/messages`)).body.data.find((x: { id: string }) => x.id === m.id)
        .attachments[0].url,
    );
    await db.db.update(messages).set({ deletedAt: new Date() }).where(eq(messages.id, m.id));
    expect(
      (await serveAttachment(f.id, link.searchParams.get("expires"), link.searchParams.get("signature"))).status,
    ).toBe(404);
  });

  it("walks by cursor; the cursor is bound to the conversation and include_deleted", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: { data: { id: string }[]; next_cursor: string | null } } = await get(
        `/conversations/${conv.a}/messages?limit=2&include_deleted=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...r.body.data.map((m) => m.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(
      (await get(`/conversations/${conv.a}/messages?include_deleted=true`)).body.data.map((m: { id: string }) => m.id),
    );
    const first = await get(`/conversations/${conv.a}/messages?limit=1`);
    for (const p of [`/conversations/${conv.d}/messages`, `/conversations/${conv.a}/messages?include_deleted=true`]) {
      const r = await get(`${p}${p.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(r.status, p).toBe(422);
      expect(r.body.errors[0].field).toBe("/cursor");
    }
  });

  it("answers 404 for the messages of a mailbox, cabinet, foreign or unknown conversation", async () => {
    for (const id of [conv.mailbox, conv.cabinet, conv.foreign, "00000000-0000-4000-8000-000000000000"]) {
      const r = await get(`/conversations/${id}/messages`);
      expect(r.status, id).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
  });

  it("answers an empty page for a conversation without messages, and for one with only a note", async () => {
    const empty = await addConversation("empty", { updatedAt: at(40) });
    const notes = await addConversation("notes", { updatedAt: at(41) });
    await addMessage("only-note", { conversationId: notes, sender: "operator", internal: true, content: "note" });
    for (const id of [empty, notes]) {
      const r = await get(`/conversations/${id}/messages?include_deleted=true`);
      expect(r.status, id).toBe(200);
      expect(r.body).toEqual({ data: [], next_cursor: null });
    }
  });

  it("journals the returned message ids", async () => {
    const r = await get(`/conversations/${conv.a}/messages`);
    const [row] = (await journal()).filter((j) => j.requestId === r.headers.get("x-request-id"));
    expect(row).toMatchObject({ route: "GET /conversations/{id}/messages", resourceType: "message" });
    expect(row.resourceIds).toEqual(r.body.data.map((m: { id: string }) => m.id));
  });
});

describe("personal-data rules", () => {
  it("answers 503 and returns no data when the disclosure journal cannot be written", async () => {
    await db.db.execute(sql`alter table disclosures rename to disclosures_away`);
    try {
      for (const p of ["/conversations", `/conversations/${conv.a}`, `/conversations/${conv.a}/messages`]) {
        const r = await get(p);
        expect(r.status, p).toBe(503);
        expect(r.body.code).toBe("service_unavailable");
        expect(r.headers.get("retry-after")).not.toBeNull();
        expect(r.text).not.toContain(conv.a);
      }
    } finally {
      await db.db.execute(sql`alter table disclosures_away rename to disclosures`);
    }
  });

  it("on the RU cell refuses an integration whose recipient is outside Russia with 403 before any read", async () => {
    const abroad = await makeTenant(db.db, { integration: { piiCountry: "DE" } });
    const [c] = await db.db
      .insert(conversations)
      .values({ tenantId: abroad.tenantId, channelType: "website" })
      .returning();
    for (const p of ["/conversations", `/conversations/${c.id}`, `/conversations/${c.id}/messages`]) {
      const r = await get(p, abroad.key);
      expect(r.status, p).toBe(403);
      expect(r.body.code).toBe("pii_transfer_not_allowed");
    }
    const wide = await makeTenant(db.db, { key: { ipAllowlist: ["10.0.0.0/8", "127.0.0.1"] } });
    expect((await get("/conversations", wide.key)).body.code).toBe("pii_transfer_not_allowed");
    expect(
      await db.db
        .select()
        .from(disclosures)
        .where(and(eq(disclosures.tenantId, abroad.tenantId))),
    ).toHaveLength(0);
  });
});

// Issue 69: a test key of a tenant with the preview `test-mode` reads the tenant's sandbox only, a live
// key live data only: a conversation of the other mode is 404 (itself and its messages), a list omits it.
describe("test mode", () => {
  let mt: TenantFixture;
  let sandbox: string;
  const ids: Record<string, string> = {};

  /** A conversation of `mt` in mode `livemode` with one customer message holding a stored file. */
  async function withMessage(name: string, livemode: boolean): Promise<void> {
    const [c] = await db.db
      .insert(conversations)
      .values({ tenantId: mt.tenantId, livemode, channelType: "website", updatedAt: at(50) })
      .returning();
    const [m] = await db.db
      .insert(messages)
      .values({ tenantId: mt.tenantId, livemode, conversationId: c!.id, sender: "customer", content: name })
      .returning();
    const [f] = await db.db
      .insert(messageAttachments)
      .values({
        tenantId: mt.tenantId,
        livemode,
        messageId: m!.id,
        fileName: `${name}.jpg`,
        mimeType: "image/jpeg",
        sizeBytes: 5,
        storagePath: `${t.tenantId}/attachments/photo-1.jpg`,
      })
      .returning();
    Object.assign(ids, { [`${name}Conversation`]: c!.id, [`${name}Message`]: m!.id, [`${name}File`]: f!.id });
  }
  const listed = async (key: string) => {
    const r = await call("GET", "/conversations?limit=100", { key });
    expect(r.status).toBe(200);
    return (r.body.data as { id: string }[]).map((c) => c.id);
  };

  beforeAll(async () => {
    mt = await makeTenant(db.db);
    sandbox = await sandboxKey(db.db, mt);
    await withMessage("live", true);
    await withMessage("sandbox", false);
  });

  it("lists only the conversations of the key's mode", async () => {
    const live = await listed(mt.key);
    const test = await listed(sandbox);
    expect(live).toContain(ids.liveConversation);
    expect(live).not.toContain(ids.sandboxConversation);
    expect(test).toContain(ids.sandboxConversation);
    expect(test).not.toContain(ids.liveConversation);
  });

  it("answers a conversation of the other mode, and its messages, with 404 not_found", async () => {
    for (const [id, key] of [
      [ids.liveConversation!, sandbox],
      [ids.sandboxConversation!, mt.key],
    ] as const) {
      for (const r of [
        await call("GET", `/conversations/${id}`, { key }),
        await call("GET", `/conversations/${id}/messages`, { key }),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body.code).toBe("not_found");
      }
    }
    expect((await call("GET", `/conversations/${ids.sandboxConversation}`, { key: sandbox })).status).toBe(200);
  });

  it("gives a sandbox conversation's messages and their files to the sandbox key", async () => {
    const r = await call("GET", `/conversations/${ids.sandboxConversation}/messages`, { key: sandbox });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      expect.objectContaining({
        id: ids.sandboxMessage,
        content: "sandbox",
        attachments: [expect.objectContaining({ id: ids.sandboxFile, file_name: "sandbox.jpg" })],
      }),
    ]);
    const u = new URL(r.body.data[0].attachments[0].url);
    const file = await serveAttachment(
      ids.sandboxFile!,
      u.searchParams.get("expires"),
      u.searchParams.get("signature"),
    );
    expect(file.status).toBe(200);
  });

  it("joins a conversation's messages and a message's files only in their own mode", async () => {
    // Rows that break the rule (a live message in a sandbox conversation, a sandbox file of a live
    // message) never come out together.
    const [stray] = await db.db
      .insert(messages)
      .values({
        tenantId: mt.tenantId,
        livemode: true,
        conversationId: ids.sandboxConversation!,
        sender: "customer",
        content: "stray",
      })
      .returning();
    const [file] = await db.db
      .insert(messageAttachments)
      .values({
        tenantId: mt.tenantId,
        livemode: false,
        messageId: stray!.id,
        fileName: "stray.jpg",
        mimeType: "image/jpeg",
        sizeBytes: 5,
        storagePath: `${t.tenantId}/attachments/photo-1.jpg`,
      })
      .returning();
    const page = await call("GET", `/conversations/${ids.sandboxConversation}/messages`, { key: sandbox });
    expect(page.body.data.map((m: { id: string }) => m.id)).toEqual([ids.sandboxMessage]);
    const [own] = await db.db
      .insert(messages)
      .values({ tenantId: mt.tenantId, livemode: true, conversationId: ids.liveConversation!, sender: "customer" })
      .returning();
    await db.db.update(messageAttachments).set({ messageId: own!.id }).where(eq(messageAttachments.id, file!.id));
    const livePage = await call("GET", `/conversations/${ids.liveConversation}/messages`, { key: mt.key });
    expect(livePage.body.data.find((m: { id: string }) => m.id === own!.id)).toMatchObject({ attachments: [] });
    const { url } = signAttachmentLink(file!.id);
    const link = new URL(url);
    expect(
      (await serveAttachment(file!.id, link.searchParams.get("expires"), link.searchParams.get("signature"))).status,
    ).toBe(404);
  });
});
