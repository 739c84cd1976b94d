import { expect, test } from "@playwright/test";
import { seriousViolations } from "./axe";
import { demo, signIn } from "./sign-in";

// The console's Analytics page (issue 74 item 7), as the demo owner, on the demo seed's sample analytics
// (server/services/analytics/sample-analytics.ts: 30 days of rollups over seven sources, twelve received
// events): "Analytics" in the navigation opens it; it says the tenant lacks the preview event-intake; the
// Sessions, Leads and Revenue charts draw bars, the traffic sources table lists the sample's sources with
// their figures; the live list shows the received events newest first with their statuses, and asks for
// them again every 3 s. No serious accessibility violation, nothing wider than a phone's window.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("charts the last 30 days and lists the events received, with their statuses", async ({ page }) => {
  test.setTimeout(60_000);
  const { tenantId } = demo();
  await page.goto(`/console/usage?tenant=${tenantId}`);
  await signIn(page, "Usage");
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Analytics" }).click();
  await expect(page.getByRole("heading", { name: "Analytics", level: 1 })).toBeVisible();
  await expect(page.getByTestId("intake-preview-note")).toContainText("event-intake");
  await expect(page.getByTestId("analytics-empty")).toHaveCount(0);

  for (const title of ["Sessions", "Leads", "Revenue"]) {
    const chart = page.getByRole("figure", { name: title, exact: true });
    await expect(chart.locator("svg.recharts-surface").first()).toBeVisible();
    await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
    await expect(chart.getByRole("img", { name: new RegExp(`^${title}, last 30 days: `) })).toBeVisible();
  }
  await expect(page.getByRole("img", { name: /^Revenue, last 30 days: / })).toHaveAttribute(
    "aria-label",
    /Revenue, RUB [1-9][\d\s ]*,\d\d\s?₽/,
  );

  const sources = page.getByRole("figure", { name: "Traffic sources" });
  await expect(sources.locator(".recharts-bar-rectangle").first()).toBeVisible();
  const sourceRows = page.getByTestId("traffic-sources").locator("tbody tr");
  await expect(sourceRows).toHaveCount(7);
  // More sessions first: the sample's biggest source is google, and chatgpt is an AI assistant.
  await expect(sourceRows.first().getByRole("rowheader")).toHaveText("google");
  await expect(sourceRows.filter({ hasText: "chatgpt" })).toContainText("AI assistant");
  await expect(sourceRows.first().locator("td").nth(1)).toHaveText(/^[1-9]\d*$/);

  const live = page.getByTestId("live-events");
  const liveRows = live.locator("tbody tr");
  await expect(liveRows).toHaveCount(12);
  await expect(liveRows.first().locator(".badge")).toHaveText("rejected");
  await expect(liveRows.first()).toContainText("must be a known type");
  await expect(live.locator(".badge.duplicate")).toHaveCount(2);
  await expect(live.locator(".badge.rejected")).toHaveCount(2);
  await expect(live.locator(".badge.accepted")).toHaveCount(8);
  await expect(liveRows.filter({ hasText: "order-3001" }).filter({ hasText: "accepted" })).toContainText("Lead won");
  await expect(liveRows.filter({ hasText: "form-2001" })).toContainText("Lead created");
  // Newest first.
  const times = await live.locator("time").evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute("datetime")!)));
  expect(times).toEqual([...times].sort((a, b) => b - a));
  // The live list asks again within 3 s (and the page keeps its rows).
  await page.waitForResponse((r) => r.url().includes("analytics.live"), { timeout: 6_000 });
  await expect(liveRows).toHaveCount(12);

  expect(await seriousViolations(page), "analytics page").toEqual([]);
  await page.screenshot({ path: "/tmp/analytics-1280.png", fullPage: true });

  await page.setViewportSize({ width: 390, height: 900 });
  await expect(liveRows).toHaveCount(12);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `the page is ${overflow} px wider than a phone's window`).toBeLessThanOrEqual(0);
  expect(await seriousViolations(page), "analytics page on a phone").toEqual([]);
  await page.screenshot({ path: "/tmp/analytics-390.png", fullPage: true });
  await sources.screenshot({ path: "/tmp/analytics-390-sources.png" });
});
