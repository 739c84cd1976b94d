import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { listDocPages } from "@/server/lib/docs-pages";
import { signIn } from "./sign-in";

// The guides at /docs (issue 68 item 1): the app serves every page of docs/ (and the README as the index),
// each opens in Chromium under the pages' Content-Security-Policy, every link on it leads somewhere (each
// internal address answers 200 and each #anchor exists on its target), a page that does not exist is a
// 404, /docs/api stays the API reference, and the console and the error reference link the guides.

const AXE = readFileSync("node_modules/axe-core/axe.min.js", "utf8");

/** Every address of the guides: the index and each page. */
async function docPaths(): Promise<string[]> {
  return ["/docs", ...(await listDocPages()).map((p) => `/docs/${p.name}`)];
}

/** The ids of an HTML text (what a #fragment can land on). */
function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
}

/** The internal links of the page as it is now: same-origin addresses, each with its text. */
async function internalLinks(page: Page): Promise<{ url: URL; text: string }[]> {
  const origin = new URL(page.url()).origin;
  const links = await page.evaluate(() =>
    [...document.querySelectorAll("a[href]")].map((a) => ({
      href: (a as HTMLAnchorElement).href,
      text: (a.textContent ?? "").trim(),
    })),
  );
  return links.map((l) => ({ url: new URL(l.href), text: l.text })).filter((l) => l.url.origin === origin);
}

/** Status and ids of internal addresses, each fetched once. */
function targets(request: APIRequestContext) {
  const seen = new Map<string, Promise<{ status: number; ids: Set<string> }>>();
  return (path: string) => {
    if (!seen.has(path))
      seen.set(
        path,
        request.get(path).then(async (r) => ({ status: r.status(), ids: idsOf(await r.text()) })),
      );
    return seen.get(path)!;
  };
}

test("every page of the guides opens, and every link on it leads somewhere", async ({ page, request }) => {
  test.setTimeout(180_000);
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  page.on("pageerror", (e) => violations.push(e.message));
  const target = targets(request);
  const paths = await docPaths();
  expect(paths).toEqual(expect.arrayContaining(["/docs/api-tour", "/docs/webhooks", "/docs/architecture"]));
  const broken: string[] = [];
  let checked = 0;
  for (const path of paths) {
    const answer = await page.goto(path);
    expect(answer?.status(), path).toBe(200);
    expect(answer?.headers()["content-security-policy"], path).toMatch(/script-src 'self' 'nonce-/);
    await expect(page.locator("article.doc h1").first(), path).toBeVisible();
    // The sidebar lists every page, the shown one marked.
    await expect(page.getByRole("navigation", { name: "Guides" }).getByRole("link")).toHaveCount(paths.length);
    await expect(page.locator('nav a[aria-current="page"]')).toHaveAttribute("href", path);
    for (const { url, text } of await internalLinks(page)) {
      checked++;
      const where = `${path}: "${text}" → ${url.pathname}${url.hash}`;
      const { status, ids } = await target(url.pathname + url.search);
      if (status !== 200) broken.push(`${where} answers ${status}`);
      const fragment = decodeURIComponent(url.hash.slice(1));
      if (fragment && !ids.has(fragment)) broken.push(`${where}: no element #${fragment} there`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(100);
  expect(violations).toEqual([]);
});

test("the guides read well: headings ids, code as written, no sideways scroll, no serious accessibility fault", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto("/docs/api-tour#errors");
  await expect(page.locator("#errors")).toBeInViewport();
  // Code blocks keep their text as written, comments included; links between guides point into the app.
  await expect(page.locator("pre code").filter({ hasText: "# 401 invalid_api_key" }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "webhooks.md" }).first()).toHaveAttribute("href", "/docs/webhooks");
  await page.screenshot({ path: "test-results/docs-api-tour.png" });
  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Platform: public API v1 and tenant console");
  await page.screenshot({ path: "test-results/docs-index.png", fullPage: true });

  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of await docPaths()) {
      await page.goto(path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path} at ${width} px is ${overflow} px wider than the window`).toBeLessThanOrEqual(0);
      if (width !== 1280) continue;
      await page.addScriptTag({ content: AXE });
      const faults = await page.evaluate(async () => {
        type Result = { violations: { id: string; impact: string | null; nodes: unknown[] }[] };
        const axe = (window as unknown as { axe: { run(): Promise<Result> } }).axe;
        return (await axe.run()).violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.impact} ${v.id} (${v.nodes.length})`);
      });
      expect(faults, path).toEqual([]);
    }
  }
  await page.screenshot({ path: "test-results/docs-phone.png" });
});

test("a page that does not exist is a 404, and /docs/api stays the API reference", async ({ request }) => {
  for (const path of ["/docs/nope", "/docs/API-TOUR", "/docs/api-tour.md", "/docs/..%2FREADME", "/docs/README"])
    expect((await request.get(path)).status(), path).toBe(404);
  const reference = await request.get("/docs/api");
  expect(reference.status()).toBe(200);
  expect(await reference.text()).toContain("swagger-ui");
});

test("the console's navigation and the error reference lead to the guides", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto("/developers/errors");
  await page.getByRole("link", { name: "guides" }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Platform: public API v1 and tenant console");

  await page.goto("/console");
  await signIn(page, "Demo Shop");
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Docs", exact: true }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await page.getByRole("navigation", { name: "Guides" }).getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
});
