import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Job, JobOutcome } from "./protocol.js";
import type { Target } from "./target.js";

/** What the WordPress target remembers of a post it wrote, per article. */
interface WrittenPost {
  post_id: number;
  version: number;
  /** The post's `modified_gmt` as WordPress answered the connector's last write. */
  modified_gmt: string;
  /**
   * SHA-256 (hex) of the post's raw title and content after that write: `modified_gmt` has a one-second
   * grain, so an edit within the second of the write is seen by this one.
   */
  sha256?: string;
}

interface WordPressState {
  site: string;
  posts: Record<string, WrittenPost>;
}

/** A post as the WordPress REST API answers it (the fields used here). */
interface WpPost {
  id: number;
  link: string;
  status: string;
  modified_gmt: string;
  /** Present in the `edit` context (reads with `context=edit`, and the answers to writes). */
  title?: { raw?: string };
  content?: { raw?: string };
}

/** SHA-256 (hex) of a post's raw title and content, or undefined when the answer has no raw fields. */
function fingerprint(p: WpPost): string | undefined {
  if (p.title?.raw === undefined || p.content?.raw === undefined) return undefined;
  return createHash("sha256").update(`${p.title.raw}\0${p.content.raw}`).digest("hex");
}

/** Settings of the WordPress target. */
export interface WordPressOptions {
  /**
   * The site's address (`https://blog.example.com`); the REST API is called as `URL/?rest_route=/wp/v2/...`,
   * which works with and without pretty permalinks (`/wp-json/` needs them).
   */
  url: string;
  /** A WordPress user allowed to publish posts. */
  user: string;
  /** An application password of that user (Users → Profile → Application Passwords). */
  appPassword: string;
  /** Where the connector keeps what it wrote (default `.site-connector-wordpress.json` here). */
  stateFile?: string;
  fetchImpl?: typeof fetch;
}

/**
 * Target `wordpress:URL`: publishes each article as a post through the WordPress REST API with an
 * application password (Basic authentication), with status `draft` or `publish` per the job. The next
 * version of the same article updates the same post. Before an update it reads the post: when its
 * `modified_gmt` differs from the one WordPress answered the connector's last write (the post was edited
 * in WordPress), or the post is gone or in the trash, the job is a `conflict` and nothing is written.
 * Post ids and those timestamps are kept in a local state file.
 */
export class WordPressTarget implements Target {
  readonly name = "wordpress";
  private readonly api: string;
  private readonly auth: string;
  private readonly stateFile: string;
  private readonly fetchImpl: typeof fetch;

  constructor(o: WordPressOptions) {
    this.api = `${o.url.replace(/\/+$/, "")}/?rest_route=/wp/v2`;
    this.auth = `Basic ${Buffer.from(`${o.user}:${o.appPassword}`).toString("base64")}`;
    this.stateFile = o.stateFile ?? ".site-connector-wordpress.json";
    this.fetchImpl = o.fetchImpl ?? fetch;
  }

  async apply(job: Job): Promise<JobOutcome> {
    const state = await this.readState();
    const known = state.posts[job.article.id];
    if (known && known.version > job.version)
      return { state: "skipped", error: `post ${known.post_id} already holds version ${known.version}` };
    if (known) {
      const res = await this.call("GET", `/posts/${known.post_id}&context=edit`);
      if (res.status === 404 || res.status === 410)
        return { state: "conflict", error: `post ${known.post_id} was deleted in WordPress` };
      const post = (await this.json(res, "read the post")) as WpPost;
      if (post.status === "trash") return { state: "conflict", error: `post ${known.post_id} is in the trash` };
      const edited = known.sha256 !== undefined && fingerprint(post) !== known.sha256;
      if (post.modified_gmt !== known.modified_gmt || edited)
        return {
          state: "conflict",
          error: `post ${known.post_id} was edited in WordPress at ${post.modified_gmt} GMT since the connector's last write`,
        };
    }
    const a = job.article;
    const body = {
      title: a.title,
      content: a.html,
      excerpt: a.meta_description ?? "",
      slug: a.slug,
      status: job.publish_mode === "publish" ? "publish" : "draft",
    };
    const res = await this.call("POST", known ? `/posts/${known.post_id}` : "/posts", body);
    const post = (await this.json(res, known ? "update the post" : "create the post")) as WpPost;
    state.posts[a.id] = {
      post_id: post.id,
      version: job.version,
      modified_gmt: post.modified_gmt,
      sha256: fingerprint(post),
    };
    await this.writeState(state);
    return { state: "applied", ...(job.publish_mode === "publish" && post.link ? { published_url: post.link } : {}) };
  }

  private call(method: string, pathname: string, body?: unknown): Promise<Response> {
    return this.fetchImpl(this.api + pathname, {
      method,
      headers: {
        authorization: this.auth,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** The JSON of a 2xx answer. @throws Error naming WordPress's code and message otherwise */
  private async json(res: Response, what: string): Promise<unknown> {
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as unknown;
    let detail = `HTTP ${res.status}`;
    try {
      const e = JSON.parse(text) as { code?: string; message?: string };
      if (e.code) detail = `${e.code}: ${e.message ?? ""}`.trim();
    } catch {
      // not JSON: keep the status
    }
    throw new Error(`WordPress refused to ${what} (${detail})`);
  }

  private async readState(): Promise<WordPressState> {
    try {
      const s = JSON.parse(await readFile(this.stateFile, "utf8")) as WordPressState;
      if (s.site !== this.api) throw new Error(`${this.stateFile} belongs to another site (${s.site})`);
      return s;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { site: this.api, posts: {} };
      throw err;
    }
  }

  private async writeState(state: WordPressState): Promise<void> {
    await mkdir(path.dirname(path.resolve(this.stateFile)), { recursive: true });
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(state, null, 2) + "\n", "utf8");
    await rename(tmp, this.stateFile);
  }
}
