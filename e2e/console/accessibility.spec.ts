import { expect, test } from "@playwright/test";
import { seriousViolations } from "./axe";
import { signIn } from "./sign-in";

// Every console page at a laptop (1280 px) and a phone (390 px) width (issue 19 item 9): axe-core
// (injected from node_modules, the engine behind Lighthouse's accessibility audit) finds no serious or
// critical violation, and nothing is wider than the window, so no page scrolls sideways as a whole.

/** The console's pages with a heading each shows once loaded. */
const PAGES: { path: string; heading: string | RegExp }[] = [
  { path: "/console", heading: "Demo Shop" },
  { path: "/console/integrations", heading: "Integrations" },
  { path: "/console/webhooks", heading: "Webhooks" },
  { path: "/console/wallet", heading: "Wallet" },
  { path: "/console/operations", heading: "Operations" },
  { path: "/console/requests", heading: "API requests" },
  { path: "/console/usage", heading: "Usage" },
  { path: "/console/leads", heading: "Leads" },
  { path: "/console/articles", heading: "Articles" },
  { path: "/console/sites", heading: "Sites" },
  { path: "/console/journal", heading: "Disclosure journal" },
  { path: "/console/team", heading: "Team" },
  { path: "/console/settings", heading: "Settings" },
  { path: "/developers/errors", heading: "API errors" },
];

for (const width of [1280, 390]) {
  test(`console pages at ${width} px: no serious accessibility violation, no sideways scroll`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/console");
    expect(await seriousViolations(page), "sign-in page").toEqual([]);
    await signIn(page, /Demo/);
    for (const { path, heading } of PAGES) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
      await page.waitForLoadState("networkidle");
      expect(await seriousViolations(page), path).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path} is ${overflow} px wider than the window`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `test-results/a11y-${width}${path.replaceAll("/", "-")}.png`, fullPage: true });
    }
  });
}
