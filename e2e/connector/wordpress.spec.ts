import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { operatorCli } from "../console/operator-cli";
import { demo } from "../console/sign-in";
import { APP_PORT } from "../prism/settings";
import { startWordPress, type WordPressSite } from "./wordpress-site";

// The site connector's wordpress target against a real WordPress (issue 71 item 5): Debian's `wordpress`
// package served by PHP on the machine's MariaDB (wordpress-site.ts; .ci/run installs it), the connector as
// a separate process against the built app. Approve → publish → the post exists in WordPress with the
// article's title and body → the article is `published` at the post's address → the post is edited in
// WordPress → the next publish of the article reports `conflict` and leaves the post as edited.

test.describe.configure({ mode: "serial" });
test.setTimeout(90_000);

const BASE = `http://localhost:${APP_PORT}`;
const CLI = "connector/dist/cli.js";

interface Article {
  id: string;
  title: string;
  slug: string | null;
  status: string;
  content?: string;
  publication: { state: string; published_url: string | null; error: string | null } | null;
}

/** A post in the REST API's `edit` context. */
interface WpPost {
  id: number;
  link: string;
  status: string;
  title: { raw: string };
  content: { raw: string };
}

let wp: WordPressSite;
let dir: string;
let token: string;
let siteId: string;
let auth: Record<string, string>;
let connector: ChildProcess | undefined;
let output = "";

const wpAuth = () => ({ authorization: `Basic ${Buffer.from(`${wp.user}:${wp.appPassword}`).toString("base64")}` });

const getArticle = async (request: APIRequestContext, id: string) =>
  (await (await request.get(`/api/public/v1/articles/${id}`, { headers: auth })).json()) as Article;

async function publish(request: APIRequestContext, id: string): Promise<void> {
  const r = await request.post(`/api/public/v1/articles/${id}/publish`, {
    headers: auth,
    data: { target: "connector", site_id: siteId, publish_mode: "publish" },
  });
  expect(r.status(), await r.text()).toBe(200);
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  if (!existsSync(CLI)) expect(spawnSync("npm", ["run", "connector:build"], { stdio: "inherit" }).status).toBe(0);
  const { apiKey, tenantId } = demo();
  auth = { authorization: `Bearer ${apiKey}` };
  await operatorCli("preview:set", "--tenant", tenantId, "--feature", "articles-writes", "--enabled", "true");
  const site = JSON.parse(
    (await operatorCli("site:create", "--tenant", tenantId, "--domain", `wp${Date.now()}.example.com`)).stdout,
  ) as { site_id: string; connector_token: string };
  token = site.connector_token;
  siteId = site.site_id;
  dir = mkdtempSync(path.join(tmpdir(), "e2e-wordpress-"));
  wp = await startWordPress();
});

test.afterAll(async () => {
  connector?.kill("SIGKILL");
  await wp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("publishes an approved article as a WordPress post, and reports a post edited in WordPress as a conflict", async ({
  request,
}) => {
  connector = spawn(
    process.execPath,
    // The `site-connector` command as npm links it at the project's root (a dev dependency on ./connector).
    [
      path.resolve("node_modules/.bin/site-connector"),
      "--base-url",
      BASE,
      "--target",
      `wordpress:${wp.url}`,
      "--wp-user",
      wp.user,
      "--wait",
      "2",
    ],
    // The token and the application password from the environment, as the docs suggest for a service.
    { cwd: dir, env: { ...process.env, SITE_CONNECTOR_TOKEN: token, WP_APP_PASSWORD: wp.appPassword } },
  );
  const exited = new Promise<number | null>((resolve) => connector!.on("exit", (code) => resolve(code)));
  connector.stdout!.on("data", (b: Buffer) => (output += b.toString()));
  connector.stderr!.on("data", (b: Buffer) => (output += b.toString()));
  await expect
    .poll(async () => {
      const sites = (await (await request.get("/api/public/v1/sites", { headers: auth })).json()) as {
        data: { id: string; status: string }[];
      };
      return sites.data.find((s) => s.id === siteId)?.status;
    })
    .toBe("working");

  // A draft (or one in review) of the demo tenant, given its own slug and body, approved and published
  // through the connector. Earlier specs of the run use the demo's first drafts: this one takes the last.
  const list = async (status: string) =>
    (await (await request.get(`/api/public/v1/articles?status=${status}&limit=50`, { headers: auth })).json())
      .data as Article[];
  const candidates = [...(await list("draft")), ...(await list("review"))];
  expect(candidates.length, "a draft or review article in the demo tenant").toBeGreaterThan(0);
  const edited = await request.patch(`/api/public/v1/articles/${candidates.at(-1)!.id}`, {
    headers: auth,
    data: {
      slug: `connector-wordpress-${Date.now()}`,
      content: "<h2>Garden chairs</h2><p>Three chairs that survive <strong>a wet winter</strong>.</p>",
    },
  });
  expect(edited.status(), await edited.text()).toBe(200);
  const article = (await edited.json()) as Article;
  const approved = await request.post(`/api/public/v1/articles/${article.id}/approve`, { headers: auth });
  expect(approved.status(), await approved.text()).toBe(200);
  await publish(request, article.id);

  await expect.poll(async () => (await getArticle(request, article.id)).status, { timeout: 30_000 }).toBe("published");
  const published = await getArticle(request, article.id);
  const found = await fetch(`${wp.url}/?rest_route=/wp/v2/posts&slug=${article.slug}&context=edit`, {
    headers: wpAuth(),
  });
  const posts = (await found.json()) as WpPost[];
  expect(posts.map((p) => [p.title.raw, p.status])).toEqual([[article.title, "publish"]]);
  const post = posts[0]!;
  expect(post.content.raw).toBe(article.content);
  expect(published.publication).toMatchObject({ state: "applied", published_url: post.link });
  expect(post.link.startsWith(wp.url)).toBe(true);
  expect(output).not.toContain(token);
  expect(output).not.toContain(wp.appPassword);

  // Edited in WordPress; the article changes on the platform and is published again: conflict.
  const edit = await fetch(`${wp.url}/?rest_route=/wp/v2/posts/${post.id}`, {
    method: "POST",
    headers: { ...wpAuth(), "content-type": "application/json" },
    body: JSON.stringify({ content: "<p>Edited in WordPress by the site's owner.</p>" }),
  });
  expect(edit.status).toBe(200);
  const patched = await request.patch(`/api/public/v1/articles/${article.id}`, {
    headers: auth,
    data: { meta_description: "A new description from the platform" },
  });
  expect(patched.status(), await patched.text()).toBe(200);
  await publish(request, article.id);
  await expect
    .poll(async () => (await getArticle(request, article.id)).publication?.state, { timeout: 30_000 })
    .toBe("conflict");
  expect((await getArticle(request, article.id)).publication?.error).toContain("edited in WordPress");
  const after = (await (
    await fetch(`${wp.url}/?rest_route=/wp/v2/posts/${post.id}&context=edit`, { headers: wpAuth() })
  ).json()) as WpPost;
  expect(after.content.raw).toBe("<p>Edited in WordPress by the site's owner.</p>");

  connector.kill("SIGTERM");
  expect(await exited).toBe(0);
});
