import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { operatorCli } from "../console/operator-cli";
import { demo } from "../console/sign-in";
import { APP_PORT } from "../prism/settings";

// The site connector (connector/, `site-connector`) as a separate process against the built app, target
// folder (issue 71 items 4 and 5): approve → publish → the file appears with the article's title and the
// article is published at <public-url>/<slug>; a hand edit makes the next publish a conflict; a stopped
// connector gives its lease back, and a killed one's lease expires (CONNECTOR_LEASE_SECONDS=4 in
// playwright.config.ts) so that another connector finishes the job, once.

test.describe.configure({ mode: "serial" });
test.setTimeout(60_000);

const BASE = `http://localhost:${APP_PORT}`;
const PUBLIC_URL = "https://blog.example.com/posts";
const CLI = "connector/dist/cli.js";

/** A connector process and everything it printed. */
interface Connector {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

let dir: string;
let token: string;
let siteId: string;
let auth: Record<string, string>;
const running: Connector[] = [];

function startConnector(...extra: string[]): Connector {
  const child = spawn(
    process.execPath,
    [
      CLI,
      "--base-url",
      BASE,
      "--target",
      `folder:${dir}`,
      "--public-url",
      PUBLIC_URL,
      "--wait",
      "2",
      "--verbose",
      ...extra,
    ],
    { env: { ...process.env, SITE_CONNECTOR_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let text = "";
  child.stdout!.on("data", (b: Buffer) => (text += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (text += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const c = { child, out: () => text, exited };
  running.push(c);
  return c;
}

type Article = {
  id: string;
  title: string;
  slug: string | null;
  status: string;
  publication: { state: string; published_url: string | null; error: string | null } | null;
};

const getArticle = async (request: APIRequestContext, id: string) =>
  (await (await request.get(`/api/public/v1/articles/${id}`, { headers: auth })).json()) as Article;

/** A draft article of the demo tenant with a body, approved now. */
async function approvedDraft(request: APIRequestContext, skip: Set<string>): Promise<Article> {
  const list = (await (
    await request.get("/api/public/v1/articles?status=draft&limit=50", { headers: auth })
  ).json()) as {
    data: Article[];
  };
  for (const a of list.data) {
    if (skip.has(a.id)) continue;
    const full = await getArticle(request, a.id);
    if (!(full as unknown as { content: string }).content) continue;
    const approved = await request.post(`/api/public/v1/articles/${a.id}/approve`, { headers: auth });
    expect(approved.status(), await approved.text()).toBe(200);
    skip.add(a.id);
    return full;
  }
  throw new Error("no draft article with a body left in the demo tenant");
}

async function publish(request: APIRequestContext, id: string): Promise<void> {
  const r = await request.post(`/api/public/v1/articles/${id}/publish`, {
    headers: auth,
    data: { target: "connector", site_id: siteId, publish_mode: "publish" },
  });
  expect(r.status(), await r.text()).toBe(200);
}

const used = new Set<string>();

test.beforeAll(async () => {
  if (!existsSync(CLI)) expect(spawnSync("npm", ["run", "connector:build"], { stdio: "inherit" }).status).toBe(0);
  const { apiKey, tenantId } = demo();
  auth = { authorization: `Bearer ${apiKey}` };
  await operatorCli("preview:set", "--tenant", tenantId, "--feature", "articles-writes", "--enabled", "true");
  const site = JSON.parse(
    (await operatorCli("site:create", "--tenant", tenantId, "--domain", `blog${Date.now()}.example.com`)).stdout,
  ) as { site_id: string; connector_token: string };
  token = site.connector_token;
  siteId = site.site_id;
  dir = mkdtempSync(path.join(tmpdir(), "e2e-connector-"));
});

test.afterAll(async () => {
  for (const c of running) c.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("publishes an approved article as <slug>.md, and reports a hand-edited file as a conflict", async ({
  request,
}) => {
  const connector = startConnector();
  // The site is linked once its connector polled: GET /sites shows it working.
  await expect
    .poll(async () => {
      const sites = (await (await request.get("/api/public/v1/sites", { headers: auth })).json()) as {
        data: { id: string; status: string }[];
      };
      return sites.data.find((s) => s.id === siteId)?.status;
    })
    .toBe("working");

  const article = await approvedDraft(request, used);
  await publish(request, article.id);
  const slug = article.slug || article.id;
  const file = path.join(dir, `${slug}.md`);
  await expect.poll(() => existsSync(file)).toBe(true);
  expect(readFileSync(file, "utf8")).toContain(`title: ${JSON.stringify(article.title)}`);
  await expect.poll(async () => (await getArticle(request, article.id)).status).toBe("published");
  expect((await getArticle(request, article.id)).publication).toMatchObject({
    state: "applied",
    published_url: `${PUBLIC_URL}/${slug}`,
  });
  expect(connector.out()).toMatch(
    new RegExp(`job \\S+ ${slug} v\\d+ publish -> folder: applied ${PUBLIC_URL}/${slug}`),
  );

  // Edited by hand on the site; the article changes on the platform and is published again: conflict.
  writeFileSync(file, readFileSync(file, "utf8") + "\nA line the site owner added.\n");
  const edited = await request.patch(`/api/public/v1/articles/${article.id}`, {
    headers: auth,
    data: { meta_description: "New description" },
  });
  expect(edited.status(), await edited.text()).toBe(200);
  await publish(request, article.id);
  await expect.poll(async () => (await getArticle(request, article.id)).publication?.state).toBe("conflict");
  expect((await getArticle(request, article.id)).publication?.error).toContain("changed by hand");
  expect(readFileSync(file, "utf8")).toContain("A line the site owner added.");

  // SIGTERM while waiting for jobs: the long poll is aborted and the process ends at once.
  connector.child.kill("SIGTERM");
  expect(await connector.exited).toBe(0);
});

test("a stopped connector gives its lease back; a killed one's lease expires and another finishes the job once", async ({
  request,
}) => {
  const article = await approvedDraft(request, used);
  await publish(request, article.id);
  const slug = article.slug || article.id;
  const claimed = (c: Connector) => expect.poll(() => /claimed job (\S+)/.exec(c.out())?.[1], { timeout: 15_000 });

  // Stopped mid-job (before applying): the lease is given back and the process ends.
  const stopped = startConnector("--apply-delay-ms", "60000");
  await claimed(stopped).toBeTruthy();
  const jobId = /claimed job (\S+)/.exec(stopped.out())![1]!;
  stopped.child.kill("SIGTERM");
  expect(await stopped.exited).toBe(0);
  expect(stopped.out()).toContain(`job ${jobId} ${slug}`);
  expect(stopped.out()).toContain("released (stopping)");

  // The released job is claimed again at once; this connector is killed without a word.
  const killed = startConnector("--apply-delay-ms", "60000");
  await claimed(killed).toBe(jobId);
  killed.child.kill("SIGKILL");
  await killed.exited;
  expect(existsSync(path.join(dir, `${slug}.md`))).toBe(false);

  // A new connector gets the job once the lease expired, and applies it once.
  const next = startConnector();
  await expect.poll(async () => (await getArticle(request, article.id)).status, { timeout: 20_000 }).toBe("published");
  expect(readFileSync(path.join(dir, `${slug}.md`), "utf8")).toContain(`title: ${JSON.stringify(article.title)}`);
  const applied = next
    .out()
    .split("\n")
    .filter((l) => l.includes(`job ${jobId} `) && l.includes(": applied"));
  expect(applied).toHaveLength(1);
  next.child.kill("SIGTERM");
  expect(await next.exited).toBe(0);
});
