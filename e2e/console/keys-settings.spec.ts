import { expect, test, type Page } from "@playwright/test";
import { operatorCli } from "./operator-cli";
import { demo, signIn } from "./sign-in";

// Keys and Settings in the console (issue 19 items 3 and 4): name a key, roll it (the new secret shown
// once; with "Now" the old key answers 401 at once, with a delay it keeps working), revoke behind a
// confirmation, and edit the tenant's settings (main domain, a channel's AI, spend limits) so they persist.
// A member without manage_integrations sees the settings without edit controls.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

/** The key list's row of a key: the one whose first cell holds its id (another row may name it as "rolled to"). */
const keyRow = (page: Page, keyId: string) =>
  page.locator("tbody tr").filter({ has: page.locator("td:first-child", { hasText: keyId }) });

const me = (request: import("@playwright/test").APIRequestContext, key: string) =>
  request.get("/api/public/v1/me", { headers: { authorization: `Bearer ${key}` } });

test("name, roll (now and with a delay) and revoke a key", async ({ page, request }) => {
  test.setTimeout(150_000);
  await page.goto("/console/integrations");
  await signIn(page, "Integrations");
  const name = `Roll ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create integration" }).click();
  await page.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name })).toBeVisible();

  const issue = page.locator("form", { has: page.getByRole("button", { name: "Issue key" }) });
  await issue.getByLabel(/^Name/).fill("shop backend");
  await issue.getByRole("button", { name: "Issue key" }).click();
  const first = (await page.getByTestId("new-key").textContent())!.trim();
  const firstId = ((await (await me(request, first)).json()) as { key: { key_id: string } }).key.key_id;
  const firstRow = keyRow(page, firstId);
  await expect(firstRow).toContainText("shop backend");
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByTestId("new-key")).toHaveCount(0);

  // Roll with "Now": a new secret, shown once; the old key is refused at once.
  await page.getByRole("button", { name: `Roll key ${firstId}` }).click();
  const roll = page.getByRole("alertdialog", { name: `Roll key ${firstId}?` });
  await expect(roll.getByRole("button", { name: "Cancel" })).toBeFocused();
  await roll.getByLabel("Now").check();
  await page.screenshot({ path: "test-results/roll-dialog.png" });
  await roll.getByRole("button", { name: "Roll key" }).click();
  await expect(roll).toHaveCount(0);
  const second = (await page.getByTestId("new-key").textContent())!.trim();
  expect(second).toMatch(/^sk_live_ru_/);
  expect(second).not.toBe(first);
  await expect(page.getByTestId("rolled-old")).toContainText(`${firstId} has stopped working`);
  const secondMe = await me(request, second);
  expect(secondMe.status()).toBe(200);
  const secondId = ((await secondMe.json()) as { key: { key_id: string } }).key.key_id;
  const refused = await me(request, first);
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe("invalid_api_key");
  await expect(firstRow).toContainText("expired");
  await expect(firstRow).toContainText(`rolled to ${secondId}`);
  // The new key keeps the name; the secret is gone once dismissed, and a reload never shows it again.
  await expect(keyRow(page, secondId)).toContainText("shop backend");
  await page.reload();
  await expect(page.getByTestId("new-key")).toHaveCount(0);

  // Roll with a delay: both keys work until then.
  await page.getByRole("button", { name: `Roll key ${secondId}` }).click();
  const later = page.getByRole("alertdialog", { name: `Roll key ${secondId}?` });
  await later.getByLabel("In 7 days").check();
  await later.getByRole("button", { name: "Roll key" }).click();
  const third = (await page.getByTestId("new-key").textContent())!.trim();
  await expect(page.getByTestId("rolled-old")).toContainText(`${secondId} keeps working until`);
  expect((await me(request, second)).status()).toBe(200);
  const thirdMe = await me(request, third);
  expect(thirdMe.status()).toBe(200);
  const thirdId = ((await thirdMe.json()) as { key: { key_id: string } }).key.key_id;

  // Rename the third key.
  await page.getByRole("button", { name: `Rename key ${thirdId}` }).click();
  const rename = page.getByRole("dialog", { name: `Name of key ${thirdId}` });
  await rename.getByLabel("Name").fill("shop backend v3");
  await rename.getByRole("button", { name: "Save name" }).click();
  await expect(rename).toHaveCount(0);
  await expect(keyRow(page, thirdId)).toContainText("shop backend v3");

  // Revoke asks first: Cancel changes nothing, confirming closes the API to the key.
  await page.getByRole("button", { name: `Revoke key ${thirdId}` }).click();
  const confirm = page.getByRole("alertdialog", { name: `Revoke key ${thirdId}?` });
  await expect(confirm).toContainText("Requests with it will answer 401 at once.");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByRole("button", { name: `Revoke key ${thirdId}` })).toBeFocused();
  expect((await me(request, third)).status()).toBe(200);
  await page.getByRole("button", { name: `Revoke key ${thirdId}` }).click();
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(keyRow(page, thirdId)).toContainText("revoked");
  expect((await me(request, third)).status()).toBe(401);

  // Revoking the whole integration asks first too; the rolled key still in its delay stops with it.
  await page.getByRole("button", { name: "Revoke", exact: true }).click();
  const whole = page.getByRole("alertdialog", { name: `Revoke ${name}?` });
  await whole.getByRole("button", { name: "Revoke integration" }).click();
  await expect(page.getByRole("heading", { name })).toContainText("revoked");
  const closed = await me(request, second);
  expect([closed.status(), ((await closed.json()) as { code: string }).code]).toEqual([401, "integration_inactive"]);
});

test("edit the main domain, a channel's AI and the spend limits; they persist", async ({ page, request }) => {
  test.setTimeout(150_000);
  const { apiKey } = demo();
  await page.goto("/console");
  await signIn(page, "Demo Shop");
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { name: "Settings", exact: true })).toBeVisible();
  await expect(page.getByTestId("crm-mode")).toContainText("internal");

  // Main domain: an address is refused beside the field; a host name asks first (cards move), then sticks.
  const domain = page.getByLabel(/^Main domain/);
  const savedNear = (button: string) => page.getByRole("button", { name: button }).locator("..").getByText("Saved");
  await domain.fill("https://shop.example.com/");
  await page.getByRole("button", { name: "Save domain" }).click();
  await expect(page.locator("#main-domain-error")).toContainText("Enter the host name only");
  await expect(domain).toHaveAttribute("aria-invalid", "true");
  // A new name each run, so it always differs from the one saved (the e2e database outlives a run).
  const host = `Shop-${Date.now()}.Example.COM`;
  await domain.fill(host);
  await page.getByRole("button", { name: "Save domain" }).click();
  const change = page.getByRole("alertdialog", { name: `Change the main domain to ${host}?` });
  await change.getByRole("button", { name: "Change domain" }).click();
  await expect(savedNear("Save domain")).toBeVisible();
  await expect(page.locator("#main-domain-error")).toBeEmpty();
  const headers = { authorization: `Bearer ${apiKey}` };
  const card = await (await request.get("/api/public/v1/cards/rain-jacket", { headers })).json();
  expect(card.page_url).toBe(`https://${host.toLowerCase()}/catalog/rain-jacket`);

  // A channel's AI: out of range is refused beside the field; a valid change sticks.
  const vk = page.getByTestId("channels").locator("tr", { hasText: "Seeded vk" });
  const limit = vk.getByRole("spinbutton");
  await limit.fill("20000");
  await vk.getByRole("button", { name: "Save" }).click();
  await expect(vk).toContainText("from 0 to 10000");
  await limit.fill("150");
  await vk.getByLabel(/^AI on for/).uncheck();
  await vk.getByRole("button", { name: "Save" }).click();
  await expect(vk.getByText("Saved")).toBeVisible();

  // Spend limits.
  const daily = page.getByLabel(/^Daily spend limit/);
  const dailyBefore = await daily.inputValue();
  await daily.fill("12 apples");
  await page.getByRole("button", { name: "Save limits" }).click();
  await expect(page.locator("#daily-limit-error")).toContainText("Enter an amount");
  await daily.fill("4321.50");
  await page.getByRole("button", { name: "Save limits" }).click();
  await expect(savedNear("Save limits")).toBeVisible();

  await page.reload();
  await expect(page.getByLabel(/^Main domain/)).toHaveValue(host.toLowerCase());
  await expect(vk.getByRole("spinbutton")).toHaveValue("150");
  await expect(vk.getByLabel(/^AI on for/)).not.toBeChecked();
  await expect(page.getByLabel(/^Daily spend limit/)).toHaveValue("4321.50");
  await page.screenshot({ path: "test-results/settings.png", fullPage: true });

  // Put the demo back as the other specs expect it.
  await page.getByLabel(/^Main domain/).fill("demo-shop.example");
  await page.getByRole("button", { name: "Save domain" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Change domain" }).click();
  await expect(savedNear("Save domain")).toBeVisible();
  await page.getByLabel(/^Daily spend limit/).fill(dailyBefore);
  await page.getByRole("button", { name: "Save limits" }).click();
  await expect(savedNear("Save limits")).toBeVisible();
  await vk.getByRole("spinbutton").fill("200");
  await vk.getByLabel(/^AI on for/).check();
  await vk.getByRole("button", { name: "Save" }).click();
  await expect(vk.getByText("Saved")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(/^Main domain/)).toHaveValue("demo-shop.example");
});

test("a member without manage_integrations sees settings and keys without edit controls", async ({ browser }) => {
  test.setTimeout(120_000);
  const { tenantId } = demo();
  const email = `viewer-${Date.now()}@demo-shop.example`;
  const { stdout } = await operatorCli(
    "staff:create",
    "--tenant",
    tenantId,
    "--email",
    email,
    "--name",
    "Viewer",
    "--rights",
    "view_personal_data",
  );
  const { password } = JSON.parse(stdout) as { password: string };
  const page = await (await browser.newContext()).newPage();
  await page.goto("/console/settings");
  await signIn(page, "Settings", { email, password });
  await expect(page.getByText("changing them needs the manage_integrations right")).toBeVisible();
  await expect(page.getByTestId("main-domain")).toHaveText("demo-shop.example");
  await expect(page.getByRole("button", { name: /^Save/ })).toHaveCount(0);
  await expect(page.getByRole("textbox")).toHaveCount(0);
  await page.getByRole("link", { name: "Integrations and keys" }).click();
  await page.getByRole("link", { name: "Demo CRM sync" }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^(Roll|Revoke|Rename) key/ })).toHaveCount(0);
});
