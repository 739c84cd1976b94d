import { expect, test } from "@playwright/test";
import { seriousViolations } from "./axe";
import { operatorCli } from "./operator-cli";
import { demo, signIn } from "./sign-in";

// The console's article generation (issue 72 item 5), as the demo owner with the preview
// `article-generation`: the editorial profile form refuses a bad source URL in the browser, its
// "Instructions preview" follows the niche, the avoid words and the example text as they are typed, and it
// is saved ("Profile saved.", kept on reload); on the Articles page "Generate article…" opens the order
// form, which shows "Up to N RUB" for the length typed before "Generate article" orders from a keyword; the
// job's line goes to succeeded with its cost, and "Open draft" opens the draft in the editor with the
// ordered title and <h2> headings in its body.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("fills the editorial profile, orders an article from a keyword and opens the draft", async ({ page }) => {
  test.setTimeout(120_000);
  const { tenantId } = demo();
  await operatorCli("preview:set", "--tenant", tenantId, "--feature", "article-generation", "--enabled", "true");
  const stamp = Date.now();

  await page.goto("/console/articles/profile");
  await signIn(page, "Editorial profile");
  const preview = page.getByTestId("instructions-preview");
  await page.getByLabel("Niche").fill(`trail running shoes ${stamp}`);
  await expect(preview).toContainText(`Niche: trail running shoes ${stamp}`);
  await page.getByLabel("Avoid").fill("cheapest, best ever");
  await expect(preview).toContainText('"cheapest", "best ever"');
  await page.getByLabel("Example text").fill("We test every pair on forest trails before it goes on sale.");
  await expect(preview).toContainText("We test every pair on forest trails before it goes on sale.");
  await page.getByLabel("Yandex Wordstat").check();
  await expect(preview).toContainText("Topics come from: search demand in Yandex Wordstat.");

  // A bad address is refused in the browser, beside its field, and nothing is sent.
  const urls = page.getByLabel("Source URLs");
  await urls.fill("https://example.com/guide\nftp://files.example.com/");
  const save = page.getByRole("button", { name: "Save profile", exact: true });
  await save.click();
  await expect(page.getByText("line 2: must be an http or https address")).toBeVisible();
  await expect(urls).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Profile saved.")).toHaveCount(0);
  await urls.fill("https://example.com/guide");
  await save.click();
  await expect(page.getByRole("form", { name: "Editorial profile" }).getByRole("status")).toHaveText("Profile saved.");
  await expect(urls).toHaveAttribute("aria-invalid", "false");
  expect(await seriousViolations(page), "editorial profile page").toEqual([]);
  await page.evaluate(() => window.scrollTo(0, 0)); // sticky parts (sidebar, preview) where a reader sees them
  await page.screenshot({ path: "test-results/console-editorial-profile.png", fullPage: true });
  await page.reload();
  await expect(page.getByLabel("Niche")).toHaveValue(`trail running shoes ${stamp}`);
  await expect(page.getByLabel("Avoid")).toHaveValue("cheapest\nbest ever");
  await expect(page.getByLabel("Yandex Wordstat")).toBeChecked();
  await expect(preview).toContainText('"cheapest", "best ever"');

  await page.getByRole("link", { name: "← Articles" }).click();
  await expect(page.getByRole("heading", { name: "Articles", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Generate article…", exact: true }).click();
  const order = page.getByRole("form", { name: "Order an article" });
  const quote = order.getByTestId("generation-quote");
  await expect(quote).toContainText(/Up to \d+\.\d{2} RUB/);
  const atDefault = await quote.textContent();
  await order.getByRole("textbox", { name: /^Keyword/ }).fill(`trail shoes ${stamp}`);
  await order.getByLabel("Title").fill(`Trail shoes for wet forests ${stamp}`);
  await order.getByLabel("Target words").fill("600");
  // The cost shown is the quote of the length typed: less for 600 words than for the default 1,200.
  await expect(quote).not.toHaveText(atDefault ?? "");
  await expect(quote).toContainText(/Up to \d+\.\d{2} RUB/);
  await order.screenshot({ path: "test-results/console-article-order.png" });
  await order.getByRole("button", { name: "Generate article", exact: true }).click();

  const job = page.getByTestId("generation-job").first();
  await expect(job).toContainText(`Keyword “trail shoes ${stamp}”`);
  await expect(job.getByTestId("generation-status")).toHaveText("succeeded", { timeout: 90_000 });
  await expect(job).toContainText(/Cost \d+\.\d{2} RUB/);
  expect(await seriousViolations(page), "articles page with a generation").toEqual([]);
  await page.evaluate(() => window.scrollTo(0, 0)); // sticky parts (sidebar, preview) where a reader sees them
  await page.screenshot({ path: "test-results/console-article-generation.png", fullPage: true });

  await job.getByRole("link", { name: "Open draft", exact: true }).click();
  await expect(page.getByTestId("article-state")).toContainText("Status draft");
  await expect(page.getByRole("heading", { name: `Trail shoes for wet forests ${stamp}`, level: 1 })).toBeVisible();
  await expect(page.getByLabel("Title", { exact: true })).toHaveValue(`Trail shoes for wet forests ${stamp}`);
  await expect(page.getByRole("textbox", { name: "Body" }).locator("h2").first()).toBeVisible();
});
