import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { seriousViolations } from "./axe";
import { operatorCli } from "./operator-cli";
import { demo, signIn } from "./sign-in";

// The console's Test mode (issue 69 item 6): with the preview test-mode on, the shell's "Test mode" switch
// shows the tenant's sandbox under a "Test data" banner on every page; the keys page then lists test keys
// only and creates them ("Create test key"); a live key made before, and its request in the request log,
// are absent in Test mode and back when the switch is off. "Reset test data" asks for a confirmation first.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

/** The key list's row of a key: the one whose first cell holds its id. */
const keyRow = (page: Page, keyId: string) =>
  page.locator("tbody tr").filter({ has: page.locator("td:first-child", { hasText: keyId }) });

/** The form that issues keys: "Issue key" out of Test mode, "Create test key" in it. */
const issueForm = (page: Page) =>
  page.locator("form", { has: page.getByRole("button", { name: /^(Issue key|Create test key)$/ }) });

/** `GET /me` with a key: its `key_id`, mode, and the request's id (its row in the request log). */
async function whoAmI(
  request: APIRequestContext,
  key: string,
): Promise<{ key_id: string; mode: string; requestId: string }> {
  const res = await request.get("/api/public/v1/me", { headers: { authorization: `Bearer ${key}` } });
  expect(res.status()).toBe(200);
  return {
    ...((await res.json()) as { key: { key_id: string; mode: string } }).key,
    requestId: res.headers()["x-request-id"],
  };
}

/** The request log page filtered by one request id. */
async function filterRequests(page: Page, requestId: string): Promise<void> {
  await page.getByLabel("Request id").fill(requestId);
  await page.getByRole("button", { name: "Apply" }).click();
}

/** The request log shows the row of `requestId` (rows are written about a second late: Refresh until it is). */
async function expectRequestListed(page: Page, requestId: string): Promise<void> {
  await filterRequests(page, requestId);
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(page.locator("tbody tr", { hasText: requestId })).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
}

/** The request log has no row of `requestId` in the mode shown. */
async function expectRequestAbsent(page: Page, requestId: string): Promise<void> {
  await filterRequests(page, requestId);
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(page.getByText(/^No requests match these filters/)).toBeVisible();
}

const setTestMode = (enabled: boolean) =>
  operatorCli("preview:set", "--tenant", demo().tenantId, "--feature", "test-mode", "--enabled", String(enabled));

// Other specs of the run expect the demo tenant without the preview.
test.afterAll(async () => {
  await setTestMode(false);
});

test("Test mode shows the sandbox under a banner, issues test keys and hides live keys", async ({ page, request }) => {
  test.setTimeout(150_000);
  const { stdout } = await setTestMode(true);
  expect(JSON.parse(stdout)).toEqual({
    tenant_id: demo().tenantId,
    preview: expect.objectContaining({ "test-mode": true }),
  });

  await page.goto("/console/integrations");
  await signIn(page, "Integrations");
  const name = `Test mode ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create integration" }).click();
  await page.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name })).toBeVisible();

  // Out of Test mode: no banner; a live key is issued and listed.
  const toggle = page.getByRole("switch", { name: "Test mode" });
  const banner = page.getByRole("region", { name: "Test data" });
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await expect(banner).toHaveCount(0);
  await issueForm(page).getByLabel(/^Name/).fill("live backend");
  await page.getByRole("button", { name: "Issue key" }).click();
  const liveKey = (await page.getByTestId("new-key").textContent())!.trim();
  expect(liveKey).toMatch(/^sk_live_/);
  const live = await whoAmI(request, liveKey);
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(keyRow(page, live.key_id)).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Create test key" })).toHaveCount(0);

  // Test mode on: the banner, and the live key is gone from the list.
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "true");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("Test data");
  await expect(page.getByRole("heading", { name: "Create a test key" })).toBeVisible();
  await expect(keyRow(page, live.key_id)).toHaveCount(0);
  await expect(page.getByText("No test keys yet.")).toBeVisible();

  // "Create test key" issues a key that works in the sandbox.
  await issueForm(page).getByLabel(/^Name/).fill("sandbox backend");
  await page.getByRole("button", { name: "Create test key" }).click();
  const testKey = (await page.getByTestId("new-key").textContent())!.trim();
  expect(testKey).toMatch(/^sk_test_/);
  const sandbox = await whoAmI(request, testKey);
  expect(sandbox.mode).toBe("test");
  await expect(keyRow(page, sandbox.key_id)).toContainText("sandbox backend");
  await page.getByRole("button", { name: "I have stored it" }).click();
  await page.screenshot({ path: "test-results/test-mode-on.png", fullPage: true });

  // The mode holds on every page and across a reload.
  await page.getByRole("link", { name: "Webhooks" }).click();
  await expect(page).toHaveURL(/\/console\/webhooks/);
  await expect(banner).toBeVisible();
  await page.reload();
  await expect(banner).toBeVisible();
  await expect(toggle).toHaveAttribute("aria-checked", "true");

  // The request log in Test mode has the test key's request and not the live key's; out of it, the reverse.
  await page.getByRole("link", { name: "API requests" }).click();
  await expect(page.getByRole("heading", { name: "API requests", level: 1 })).toBeVisible();
  await expectRequestListed(page, sandbox.requestId);
  await expectRequestAbsent(page, live.requestId);
  await page.screenshot({ path: "test-results/test-mode-requests.png" });
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await expect(banner).toHaveCount(0);
  await expectRequestListed(page, live.requestId);
  await expectRequestAbsent(page, sandbox.requestId);
  await toggle.click();
  await expect(banner).toBeVisible();

  // "Reset test data" asks first; Cancel resets nothing, confirming resets the sandbox.
  await banner.getByRole("button", { name: "Reset test data" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Reset test data?" });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.screenshot({ path: "test-results/test-mode-reset-dialog.png" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(banner.getByRole("status")).toHaveCount(0);
  await banner.getByRole("button", { name: "Reset test data" }).click();
  await dialog.getByRole("button", { name: "Reset test data" }).click();
  await expect(banner.getByRole("status")).toContainText("Test data reset");
  // Test keys survive a reset.
  expect((await whoAmI(request, testKey)).mode).toBe("test");

  // The banner and the switch pass axe at a laptop and a phone width; the quick start names a test key.
  await page.getByRole("link", { name: "Overview" }).click();
  await expect(page.getByRole("heading", { name: "Demo Shop", level: 1 })).toBeVisible();
  await expect(page.getByText("export KEY=sk_test_...")).toBeVisible();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await expect(banner).toBeVisible();
    expect(await seriousViolations(page), `Test mode at ${width} px`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `the page is ${overflow} px wider than the window`).toBeLessThanOrEqual(0);
  }
  await page.screenshot({ path: "test-results/test-mode-phone.png" });
  await page.setViewportSize({ width: 1280, height: 720 });

  // Test mode off: no banner, the live key is back and the test key is gone.
  await page.getByRole("link", { name: "Integrations and keys" }).click();
  await page.getByRole("link", { name }).click();
  await expect(keyRow(page, sandbox.key_id)).toHaveCount(1);
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await expect(banner).toHaveCount(0);
  await expect(keyRow(page, live.key_id)).toHaveCount(1);
  await expect(keyRow(page, sandbox.key_id)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Issue key" })).toBeVisible();
  await page.screenshot({ path: "test-results/test-mode-off.png", fullPage: true });
});
