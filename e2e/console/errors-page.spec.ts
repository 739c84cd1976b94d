import { expect, test } from "@playwright/test";
import { ERROR_CATALOG } from "@/server/errors";

// /developers/errors (issue 19 item 8): the page every problem `type` points to has a row for every code
// of the catalog, anchored by the code, with its status, meaning and what to do.

test("every catalog code has its anchored row, and a real problem's type link lands on it", async ({
  page,
  request,
}) => {
  const problem = await request.get("/api/public/v1/me");
  expect(problem.status()).toBe(401);
  const body = (await problem.json()) as { type: string; code: string };
  const type = new URL(body.type);
  expect(type.pathname).toBe("/developers/errors");
  expect(type.hash).toBe(`#${body.code}`);

  // The cell origin configured for the demo may name another host; the path and anchor are what resolve here.
  const answer = await page.goto(`${type.pathname}${type.hash}`);
  expect(answer?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "API errors" })).toBeVisible();
  await expect(page.locator(`[id="${body.code}"]`)).toBeInViewport();

  for (const [code, { status, title }] of Object.entries(ERROR_CATALOG)) {
    const row = page.locator(`tr[id="${code}"]`);
    await expect(row, code).toHaveCount(1);
    await expect(row.locator("td").nth(0)).toContainText(code);
    await expect(row.locator("td").nth(0)).toContainText(title);
    await expect(row.locator("td").nth(1)).toHaveText(String(status));
    await expect(row.locator("td").nth(2)).not.toBeEmpty();
  }
  await page.screenshot({ path: "test-results/errors-page.png", fullPage: true });
});
