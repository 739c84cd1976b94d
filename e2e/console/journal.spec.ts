import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";

// The disclosure journal page (issue 19 item 7): a personal-data answer of the API shows up with its
// request id, the filters narrow it, and Export CSV downloads what the filters select.

const demo = () =>
  JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as {
    apiKey: string;
    staff: { email: string; password: string };
  };

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

/** Signs in on the page that asked for it; waits out better-auth's sign-in window once if needed. */
async function signIn(page: Page) {
  const { staff } = demo();
  await page.getByLabel("Email").fill(staff.email);
  await page.getByLabel("Password").fill(staff.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  const there = page.getByRole("heading", { name: "Disclosure journal" });
  const limited = page.getByText("Too many requests");
  await expect(there.or(limited)).toBeVisible();
  if (await limited.isVisible()) {
    await page.waitForTimeout(11_000);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await expect(there).toBeVisible();
}

test("an API answer with personal data is in the journal, found by its request id and exported as CSV", async ({
  page,
  request,
}) => {
  const leads = await request.get("/api/public/v1/leads?limit=2", {
    headers: { authorization: `Bearer ${demo().apiKey}` },
  });
  expect(leads.status()).toBe(200);
  const requestId = leads.headers()["x-request-id"];
  const ids = ((await leads.json()) as { data: { id: string }[] }).data.map((l) => l.id);
  expect(ids.length).toBeGreaterThan(0);

  await page.goto("/console/journal");
  await signIn(page);
  await expect(page.getByRole("cell", { name: requestId })).toBeVisible();

  await page.getByLabel("Request id").fill(requestId);
  await page.getByRole("button", { name: "Apply" }).click();
  const rows = page.locator("tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("GET /leads");
  await expect(rows.first()).toContainText(`${ids.length} lead`);
  await page.screenshot({ path: "test-results/journal.png", fullPage: true });

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  const csv = readFileSync((await download.path())!, "utf8")
    .trimEnd()
    .split("\n");
  expect(csv[0]).toBe("time,integration_id,integration,key_id,route,resource_type,resource_ids,request_id");
  expect(csv).toHaveLength(2);
  expect(csv[1]).toContain(`GET /leads,lead,${ids.join(" ")},${requestId}`);

  // Another filter that selects nothing says so.
  await page.getByLabel("Resource").selectOption("conversation");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No personal data left through the API or webhooks under these filters.")).toBeVisible();
});
