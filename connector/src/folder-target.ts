import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Job, JobOutcome } from "./protocol.js";
import type { Target } from "./target.js";

/** Name of the state file the folder target keeps in its folder. */
export const STATE_FILE = ".site-connector.json";

/** What the folder target remembers of a file it wrote. */
interface WrittenFile {
  article_id: string;
  version: number;
  /** SHA-256 (hex) of the file's bytes as written. */
  sha256: string;
  /** The front matter's `date`, kept across versions. */
  date: string;
}

interface FolderState {
  files: Record<string, WrittenFile>;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A YAML scalar: a JSON string is a valid YAML double-quoted scalar. */
const yamlString = (s: string) => JSON.stringify(s);

/**
 * A markdown file with YAML front matter (`title`, `description`, `date`, `draft`, and `slug`), as Hugo,
 * Astro and Jekyll read it, followed by the article's markdown.
 */
export function markdownFile(job: Job, date: string): string {
  const a = job.article;
  const lines = [
    "---",
    `title: ${yamlString(a.title)}`,
    `description: ${yamlString(a.meta_description ?? "")}`,
    `date: ${yamlString(date)}`,
    `draft: ${job.publish_mode === "draft"}`,
    `slug: ${yamlString(a.slug)}`,
    ...(a.locale ? [`lang: ${yamlString(a.locale)}`] : []),
    ...(a.cover_image_url ? [`image: ${yamlString(a.cover_image_url)}`] : []),
    "---",
    "",
  ];
  return `${lines.join("\n")}\n${a.markdown.trim()}\n`;
}

/** A file name segment that cannot leave the folder: the slug when it is plain, else the article's id. */
export function fileSlug(job: Job): string {
  const s = job.article.slug;
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(s) && !s.includes("..") ? s : job.article.id;
}

/**
 * Target `folder:DIR`: writes each article as `DIR/<slug>.md` for a static site generator. Keeps the
 * SHA-256 of every file it wrote in `DIR/.site-connector.json`, and reports `conflict` instead of writing
 * when the file was changed (or deleted) by hand since its last write, or when a file it never wrote is
 * in the way. Writes are atomic (a temporary file renamed over the old one).
 */
export class FolderTarget implements Target {
  readonly name = "folder";

  /**
   * @param dir the folder (created when missing)
   * @param publicUrl the site's address where `<slug>` pages live (`https://blog.example.com/posts`);
   *   `published_url` = `<publicUrl>/<slug>`. Without it the platform gets no address.
   */
  constructor(
    private readonly dir: string,
    private readonly publicUrl?: string,
  ) {}

  async apply(job: Job): Promise<JobOutcome> {
    await mkdir(this.dir, { recursive: true });
    const state = await this.readState();
    const slug = fileSlug(job);
    const name = `${slug}.md`;
    const file = path.join(this.dir, name);
    const known = state.files[name];
    const current = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return null;
      throw err;
    });
    if (known && known.article_id !== job.article.id)
      return { state: "conflict", error: `${name} belongs to another article (${known.article_id})` };
    if (known && known.version > job.version)
      return { state: "skipped", error: `${name} already holds version ${known.version}` };
    if (current !== null && !known)
      return { state: "conflict", error: `${name} exists and was not written by the connector` };
    if (known && current === null)
      return { state: "conflict", error: `${name} was deleted by hand since the last write` };
    if (known && current !== null && sha256(current) !== known.sha256)
      return { state: "conflict", error: `${name} was changed by hand since the connector's last write` };

    const date = known?.date ?? job.article.published_at ?? new Date().toISOString();
    const text = markdownFile(job, date);
    await atomicWrite(file, text);
    state.files[name] = { article_id: job.article.id, version: job.version, sha256: sha256(text), date };
    await atomicWrite(path.join(this.dir, STATE_FILE), JSON.stringify(state, null, 2) + "\n");
    const url =
      this.publicUrl && job.publish_mode === "publish" ? `${this.publicUrl.replace(/\/+$/, "")}/${slug}` : undefined;
    return { state: "applied", ...(url ? { published_url: url } : {}) };
  }

  private async readState(): Promise<FolderState> {
    try {
      const parsed = JSON.parse(await readFile(path.join(this.dir, STATE_FILE), "utf8")) as Partial<FolderState>;
      return { files: parsed.files ?? {} };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { files: {} };
      throw new Error(`${STATE_FILE} cannot be read: ${(err as Error).message}`);
    }
  }
}

/** Writes `text` to a temporary file beside `file`, then renames it over `file`. */
async function atomicWrite(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, "utf8");
  await rename(tmp, file);
}
