import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { demo, signIn } from "./sign-in";

// The disclosure journal page (issue 19 item 7): a personal-data answer of the API shows up with its
// request id, the filters narrow it, and Export CSV downloads what the filters select.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

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
  await signIn(page, "Disclosure journal");
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
