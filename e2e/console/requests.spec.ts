import { expect, test } from "@playwright/test";
import { demo as baseDemo, signIn } from "./sign-in";

// The request log and usage pages (issue 19 items 5 and 6): a request just made with the demo key shows
// in the log (found by its X-Request-Id, about a second after its answer), the usage page draws its
// charts, and the key's list says when and from where it was last used.

const demo = () => baseDemo() as ReturnType<typeof baseDemo> & { integrationId: string };

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("a request just made is in the request log, the usage charts render, the key shows its last use", async ({
  page,
  request,
}) => {
  const headers = { authorization: `Bearer ${demo().apiKey}` };
  const me = await request.get("/api/public/v1/me", { headers });
  expect(me.status()).toBe(200);
  const requestId = me.headers()["x-request-id"];
  expect(requestId).toMatch(/^req_/);
  // The UTC day it was made on: the usage table below must have its row even if midnight passes meanwhile.
  const madeOn = new Date().toISOString().slice(0, 10);
  const missing = await request.get("/api/public/v1/cards/no-such-card-e2e", { headers });
  expect(missing.status()).toBe(404);
  const missingId = missing.headers()["x-request-id"];

  await page.goto("/console/requests");
  await signIn(page, "API requests");
  await page.getByLabel("Request id").fill(requestId);
  await page.getByRole("button", { name: "Apply" }).click();
  const rows = page.locator("tbody tr");
  // Rows are written in batches about a second after the answer: refresh until it is there.
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(rows).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(rows.first()).toContainText("GET /me");
  await expect(rows.first()).toContainText("200");
  await expect(rows.first()).toContainText(requestId);
  await expect(rows.first()).toContainText(/127\.0\.0\.1|::1/);

  // The 4xx filter finds the 404 with its problem code, linked to the errors page.
  await page.getByLabel("Request id").fill("");
  await page.getByLabel("Status").selectOption("4xx");
  await page.getByLabel("Path").fill("/cards/no-such");
  await page.getByRole("button", { name: "Apply" }).click();
  const notFound = page.locator("tbody tr", { hasText: missingId });
  await expect(notFound).toBeVisible();
  await expect(notFound.getByRole("link", { name: "not_found" })).toHaveAttribute(
    "href",
    "/developers/errors#not_found",
  );
  await page.screenshot({ path: "test-results/requests.png", fullPage: true });
  // A filter that selects nothing says so.
  await page.getByLabel("Request id").fill("req_nothing_like_this");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No requests match these filters in the last 30 days.")).toBeVisible();
  // Clear empties every field and lists every request again; the integration filter keeps the demo key's.
  await page.getByRole("button", { name: "Clear" }).click();
  await expect(page.getByLabel("Request id")).toHaveValue("");
  await expect(page.getByLabel("Status")).toHaveValue("");
  await expect(page.getByLabel("Path")).toHaveValue("");
  await expect(page.locator("tbody tr", { hasText: requestId })).toBeVisible();
  await page.getByLabel("Integration").selectOption(demo().integrationId);
  await page.getByLabel("Request id").fill(requestId);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(requestId);

  await page.getByRole("link", { name: "Usage" }).click();
  await expect(page.getByRole("heading", { name: "Usage", exact: true })).toBeVisible();
  for (const title of ["API requests by status", "API requests by integration", "Spend", "Webhook deliveries"]) {
    const chart = page.getByRole("figure", { name: title });
    await expect(chart).toBeVisible();
    await expect(chart.locator("svg.recharts-surface").first()).toBeVisible();
  }
  const byStatus = page.getByRole("figure", { name: "API requests by status" });
  await expect(byStatus.getByRole("img", { name: /^API requests by status, last 30 days/ })).toHaveAttribute(
    "aria-label",
    /2xx [1-9]/,
  );
  await byStatus.getByText("Table: API requests by status").click();
  await expect(byStatus.getByRole("rowheader", { name: madeOn })).toBeVisible();
  await expect(byStatus.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.screenshot({ path: "test-results/usage.png", fullPage: true });

  await page.goto(`/console/integrations/${demo().integrationId}`);
  await expect(page.getByText(/from (127\.0\.0\.1|::1)/).first()).toBeVisible();
});

test("a replayed answer is marked Replayed in the request log (issue 75 item 6)", async ({ page, request }) => {
  const headers = { authorization: `Bearer ${demo().apiKey}`, "idempotency-key": crypto.randomUUID() };
  const code = `e2e-replay-${Date.now()}`;
  const post = () => request.post("/api/public/v1/cards", { headers, data: { code, name: "Replay check" } });
  const first = await post();
  const again = await post();
  expect([first.status(), again.status()]).toEqual([201, 201]);
  expect(first.headers()["idempotent-replayed"]).toBeUndefined();
  expect(again.headers()["idempotent-replayed"]).toBe("true");
  const removed = await request.delete(`/api/public/v1/cards/${code}`, {
    headers: { authorization: headers.authorization },
  });
  expect(removed.status()).toBe(204);

  await page.goto("/console/requests");
  await signIn(page, "API requests");
  const rows = page.locator("tbody tr");
  for (const [answer, replayed] of [
    [first, false],
    [again, true],
  ] as const) {
    await page.getByLabel("Request id").fill(answer.headers()["x-request-id"]!);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect(rows).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await expect(rows.first()).toContainText("POST /cards");
    if (replayed) await expect(rows.first().getByText("Replayed", { exact: true })).toBeVisible();
    else await expect(rows.first().getByText("Replayed", { exact: true })).toHaveCount(0);
  }
});
