import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "./protocol.js";
import { WordPressTarget } from "./wordpress-target.js";

// The WordPress target (issue 71 item 4) against a fake WordPress REST API on loopback (posts with
// `modified_gmt`, application-password Basic auth): draft then publish of the same post, the post's link
// as the address, `conflict` after an edit in WordPress, a deleted post, and WordPress's own refusals.

interface Post {
  id: number;
  title: string;
  content: string;
  excerpt: string;
  slug: string;
  status: string;
  modified_gmt: string;
  link: string;
}

const posts = new Map<number, Post>();
const seen: string[] = [];
let clock = Date.parse("2026-12-06T10:00:00Z");
let server: Server;
let base: string;
let dir: string;
const AUTH = `Basic ${Buffer.from("editor:abcd efgh ijkl mnop").toString("base64")}`;

const gmt = () => new Date((clock += 1000)).toISOString().slice(0, 19);
const body = async (req: IncomingMessage) => {
  let s = "";
  for await (const chunk of req) s += chunk;
  return s ? (JSON.parse(s) as Partial<Post>) : {};
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "site-connector-wp-"));
  server = createServer(async (req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (req.headers.authorization !== AUTH) return send(401, { code: "rest_not_logged_in", message: "Sorry." });
    const m = /^\/\?rest_route=\/wp\/v2\/posts(?:\/(\d+))?(&.*)?$/.exec(req.url ?? "");
    if (!m) return send(404, { code: "rest_no_route", message: "No route." });
    const id = m[1] ? Number(m[1]) : undefined;
    const existing = id === undefined ? undefined : posts.get(id);
    if (id !== undefined && !existing) return send(404, { code: "rest_post_invalid_id", message: "Invalid post ID." });
    if (req.method === "GET") return send(200, existing);
    const b = await body(req);
    if (b.title === "") return send(400, { code: "empty_content", message: "Content, title, and excerpt are empty." });
    const postId = existing?.id ?? posts.size + 1;
    const post: Post = {
      ...(existing ?? ({} as Post)),
      ...(b as Post),
      id: postId,
      modified_gmt: gmt(),
      link: b.status === "publish" ? `https://wp.example.com/${b.slug}/` : `https://wp.example.com/?p=${postId}`,
    };
    posts.set(postId, post);
    send(existing ? 200 : 201, post);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

function job(
  version: number,
  mode: "draft" | "publish",
  title = "Garden chairs",
  id = "7b0c52a4-6c1e-4a8e-9f3b-2d6f2c1a9e01",
): Job {
  return {
    id: crypto.randomUUID(),
    version,
    lease_id: "lease_x",
    lease_until: new Date(Date.now() + 60_000).toISOString(),
    publish_mode: mode,
    livemode: true,
    site: { id: crypto.randomUUID(), domain: "wp.example.com" },
    article: {
      id,
      title,
      slug: "garden-chairs",
      locale: "en",
      keyword: null,
      meta_title: null,
      meta_description: "Which wood lasts",
      cover_image_url: null,
      published_at: null,
      updated_at: null,
      html: "<h2>Oak</h2><p>Lasts.</p>",
      markdown: "## Oak\n\nLasts.",
    },
  };
}

describe("WordPressTarget", () => {
  it("creates a draft, publishes the same post on the next version, and reports edits in WordPress as conflicts", async () => {
    const wp = new WordPressTarget({
      url: `${base}/`,
      user: "editor",
      appPassword: "abcd efgh ijkl mnop",
      stateFile: path.join(dir, "state.json"),
    });
    expect(await wp.apply(job(1, "draft"))).toEqual({ state: "applied" });
    expect(posts.get(1)).toMatchObject({
      title: "Garden chairs",
      status: "draft",
      content: "<h2>Oak</h2><p>Lasts.</p>",
      excerpt: "Which wood lasts",
      slug: "garden-chairs",
    });

    expect(await wp.apply(job(2, "publish", "Garden chairs, oak"))).toEqual({
      state: "applied",
      published_url: "https://wp.example.com/garden-chairs/",
    });
    expect(posts.size).toBe(1);
    expect(posts.get(1)).toMatchObject({ title: "Garden chairs, oak", status: "publish" });
    expect(seen.slice(-2)).toEqual([
      "GET /?rest_route=/wp/v2/posts/1&context=edit",
      "POST /?rest_route=/wp/v2/posts/1",
    ]);

    // An older version is skipped.
    expect((await wp.apply(job(1, "publish"))).state).toBe("skipped");

    // Edited in WordPress: conflict, the post keeps the edit.
    posts.set(1, { ...posts.get(1)!, title: "Edited in WordPress", modified_gmt: gmt() });
    const conflict = await wp.apply(job(3, "publish"));
    expect(conflict).toMatchObject({ state: "conflict", error: expect.stringContaining("edited in WordPress") });
    expect(posts.get(1)!.title).toBe("Edited in WordPress");

    // A deleted post: conflict; WordPress's refusal of a write is an error with its code.
    posts.delete(1);
    expect((await wp.apply(job(4, "publish"))).error).toContain("deleted in WordPress");
    await expect(wp.apply(job(1, "publish", "", crypto.randomUUID()))).rejects.toThrow(/empty_content/);

    // A wrong application password is refused by WordPress.
    const denied = new WordPressTarget({
      url: base,
      user: "editor",
      appPassword: "wrong",
      stateFile: path.join(dir, "other.json"),
    });
    await expect(denied.apply(job(1, "draft", "x", crypto.randomUUID()))).rejects.toThrow(/rest_not_logged_in/);
  });
});
