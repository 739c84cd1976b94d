import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FolderTarget, STATE_FILE } from "./folder-target.js";
import type { Job } from "./protocol.js";

// The folder target of the site connector (issue 71 item 4): files with YAML front matter, atomic
// rewrites of its own files, `conflict` for a file changed, deleted or never written by it.

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function job(
  over: { version?: number; slug?: string; title?: string; mode?: "draft" | "publish"; id?: string } = {},
): Job {
  return {
    id: crypto.randomUUID(),
    version: over.version ?? 3,
    lease_id: "lease_x",
    lease_until: new Date(Date.now() + 60_000).toISOString(),
    publish_mode: over.mode ?? "publish",
    livemode: true,
    site: { id: crypto.randomUUID(), domain: "blog.example.com" },
    article: {
      id: over.id ?? "7b0c52a4-6c1e-4a8e-9f3b-2d6f2c1a9e01",
      title: over.title ?? 'Garden chairs: "oak" or pine?',
      slug: over.slug ?? "garden-chairs",
      locale: "en",
      keyword: null,
      meta_title: null,
      meta_description: "Which wood lasts\nlonger",
      cover_image_url: null,
      published_at: null,
      updated_at: null,
      html: "<h2>Oak</h2><p>Lasts.</p>",
      markdown: "## Oak\n\nLasts.",
    },
  };
}

describe("FolderTarget", () => {
  it("writes <slug>.md with front matter, rewrites its own file, and reports hand changes as conflicts", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "site-connector-"));
    dirs.push(dir);
    const target = new FolderTarget(dir, "https://blog.example.com/posts/");
    const file = path.join(dir, "garden-chairs.md");

    expect(await target.apply(job({ mode: "draft" }))).toEqual({ state: "applied" });
    const first = await readFile(file, "utf8");
    const date = /^date: "(.+)"$/m.exec(first)![1]!;
    expect(first).toBe(
      [
        "---",
        'title: "Garden chairs: \\"oak\\" or pine?"',
        'description: "Which wood lasts\\nlonger"',
        `date: "${date}"`,
        "draft: true",
        'slug: "garden-chairs"',
        'lang: "en"',
        "---",
        "",
        "## Oak",
        "",
        "Lasts.",
        "",
      ].join("\n"),
    );
    expect(Date.parse(date)).not.toBeNaN();

    // The next version rewrites the file (same date), published with the public address.
    expect(await target.apply(job({ version: 4, title: "Garden chairs" }))).toEqual({
      state: "applied",
      published_url: "https://blog.example.com/posts/garden-chairs",
    });
    const second = await readFile(file, "utf8");
    expect(second).toContain('title: "Garden chairs"\n');
    expect(second).toContain("draft: false\n");
    expect(second).toContain(`date: "${date}"`);
    const state = JSON.parse(await readFile(path.join(dir, STATE_FILE), "utf8"));
    expect(state.files["garden-chairs.md"]).toMatchObject({ version: 4, date });

    // An older version than the file's is skipped; another article with the same slug is a conflict.
    expect((await target.apply(job({ version: 2 }))).state).toBe("skipped");
    expect(await target.apply(job({ version: 9, id: crypto.randomUUID() }))).toMatchObject({
      state: "conflict",
      error: expect.stringContaining("another article"),
    });

    // A hand edit: conflict, and the file keeps the hand's text.
    await writeFile(file, second.replace("Lasts.", "Lasts for ages."));
    expect(await target.apply(job({ version: 5 }))).toEqual({
      state: "conflict",
      error: "garden-chairs.md was changed by hand since the connector's last write",
    });
    expect(await readFile(file, "utf8")).toContain("Lasts for ages.");

    // Deleted by hand, or a file the connector never wrote: conflict too.
    await unlink(file);
    expect((await target.apply(job({ version: 6 }))).error).toContain("deleted by hand");
    await writeFile(path.join(dir, "mine.md"), "hand made\n");
    expect((await target.apply(job({ slug: "mine" }))).error).toContain("not written by the connector");

    // A slug that could leave the folder is replaced by the article's id.
    const odd = job({ slug: "../../etc/passwd", id: "11111111-2222-4333-8444-555555555555" });
    expect((await target.apply(odd)).state).toBe("applied");
    expect(await readFile(path.join(dir, "11111111-2222-4333-8444-555555555555.md"), "utf8")).toContain(
      'slug: "../../etc/passwd"',
    );
  });
});
