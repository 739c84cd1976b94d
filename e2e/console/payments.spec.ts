import { expect, test } from "../api/validated-request";
import { demo, signIn } from "./sign-in";
import { operatorCli } from "./operator-cli";

// Issue 18 in a real browser: a suspended tenant (negative wallet) tops up through the sandbox
// checkout. Nothing is credited until "Pay"; then the API answers 200 again within 30 s and the
// webhook delivery deferred while exchange was suspended goes out (nothing listens on
// https://localhost:443 here, so going out shows as an attempt ending in network_error).

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("a suspended tenant pays through the sandbox checkout; the API and deferred webhooks resume", async ({
  page,
  request,
}) => {
  // Two operator CLI runs (each a tsx process, ~10 s on a busy 2-core machine) plus the browser steps.
  test.setTimeout(120_000);
  const { apiKey, tenantId } = demo();
  const headers = { authorization: `Bearer ${apiKey}` };

  // A subscription, made in the console, whose test event will wait for the wallet.
  await page.goto("/console/webhooks");
  await signIn(page, /^Webhooks$/);
  const url = `https://localhost/e2e-pay-${Date.now()}`;
  await page.getByLabel(/^URL/).fill(url);
  await page.getByLabel(/^Events/).fill("lead.*");
  await page.getByRole("button", { name: "Create subscription" }).click();
  await page.getByRole("button", { name: "I have stored it" }).click();
  const row = page.getByRole("row").filter({ hasText: url });
  await expect(row.getByText("active", { exact: true })).toBeVisible();

  // Suspend: the operator debits the wallet below zero.
  const wallet = await (await request.get("/api/public/v1/wallet", { headers })).json();
  const debit = (Number(wallet.balance.amount) + 100).toFixed(2);
  await operatorCli("wallet:debit", "--tenant", tenantId, "--amount", debit);
  const suspended = await request.get("/api/public/v1/cards", { headers });
  expect(suspended.status()).toBe(402);
  const problem = await suspended.json();
  expect(problem.code).toBe("wallet_suspended");

  // The test event is deferred while exchange is suspended.
  await page.reload();
  await row.getByRole("button", { name: "Send test" }).click();
  await row.getByRole("button", { name: "Journal" }).click();
  const attempt = page.getByRole("row").filter({ hasText: "webhook.test" });
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(attempt.getByText("wallet_suspended")).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  // Top up 500.00 RUB: a pending payment, then the sandbox's test checkout.
  await page.goto(new URL(problem.topup_url).pathname + new URL(problem.topup_url).search);
  await expect(page.getByTestId("wallet-state")).toHaveText("negative");
  await page.getByLabel(/^Amount, RUB/).fill("500");
  await page.getByRole("button", { name: "Top up" }).click();
  await expect(page).toHaveURL(/\/pay\/sandbox\/[0-9a-f-]{36}$/);
  await expect(page.getByText("TEST PAYMENT")).toBeVisible();
  await expect(page.getByTestId("sandbox-amount")).toHaveText("500.00 RUB");
  // Not paid yet: still suspended.
  expect((await request.get("/api/public/v1/cards", { headers })).status()).toBe(402);

  await page.getByRole("button", { name: "Pay", exact: true }).click();
  const paidAt = Date.now();
  await expect(page).toHaveURL(/\/console\/wallet\/payments\//);
  await expect(page.getByTestId("payment-status")).toHaveText("succeeded");

  // The API answers 200 again within 30 s.
  await expect(async () => {
    expect((await request.get("/api/public/v1/cards", { headers })).status()).toBe(200);
  }).toPass({ timeout: 30_000 });
  expect(Date.now() - paidAt).toBeLessThan(30_000);

  // The wallet shows the payment and the new state: 400.00 RUB is below the low threshold, but positive.
  await page.getByRole("link", { name: "Back to the wallet" }).click();
  await expect(page.getByTestId("wallet-state")).toHaveText("low");
  await expect(page.getByText("exchange active")).toBeVisible();
  const payments = page.getByTestId("payments");
  await expect(payments.getByRole("row").nth(1)).toContainText("500.00");
  await expect(payments.getByRole("row").nth(1)).toContainText("succeeded");

  // The deferred delivery went out: an attempt was made (network_error: nothing listens there).
  await page.goto("/console/webhooks");
  await row.getByRole("button", { name: "Journal" }).click();
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(attempt.getByText("network_error")).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  expect(Date.now() - paidAt).toBeLessThan(60_000);

  await row.getByRole("button", { name: `Delete subscription ${url}` }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete subscription" }).click();
  await expect(page.getByRole("row").filter({ hasText: url })).toHaveCount(0);
  await operatorCli("wallet:credit", "--tenant", tenantId, "--amount", debit);
});

test("a declined sandbox payment credits nothing", async ({ page, request }) => {
  const { apiKey } = demo();
  const headers = { authorization: `Bearer ${apiKey}` };
  const before = (await (await request.get("/api/public/v1/wallet", { headers })).json()).balance.amount;
  await page.goto("/console/wallet");
  await signIn(page, /^Wallet$/);
  await page.getByLabel(/^Amount, RUB/).fill("250");
  await page.getByRole("button", { name: "Top up" }).click();
  await expect(page).toHaveURL(/\/pay\/sandbox\//);
  await page.getByRole("button", { name: "Decline", exact: true }).click();
  await expect(page.getByTestId("payment-status")).toHaveText("canceled");
  const after = (await (await request.get("/api/public/v1/wallet", { headers })).json()).balance.amount;
  expect(after).toBe(before);
});
