import { expect, test } from "@playwright/test";
import { operatorCli } from "./operator-cli";
import { demo, signIn } from "./sign-in";

// The console's Leads (issue 70 item 6): a lead edited in the browser gets a new version, and an edit made
// on a version someone else changed in the meantime is refused with "changed by someone else" (the API's
// If-Match rule), never written over the other change; Reload shows the current version.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("edits a lead, and refuses a stale edit with a reload instead of overwriting", async ({ page, request }) => {
  const { apiKey, tenantId } = demo();
  await operatorCli("preview:set", "--tenant", tenantId, "--feature", "leads-writes", "--enabled", "true");
  const auth = { authorization: `Bearer ${apiKey}` };
  const made = await request.post("/api/public/v1/leads", {
    headers: { ...auth, "idempotency-key": crypto.randomUUID() },
    data: { title: "Console lead", contact: { first_name: "Vera", email: "vera@example.com" } },
  });
  expect(made.status()).toBe(201);
  const lead = (await made.json()) as { id: string; etag: string };

  await page.goto(`/console/leads/${lead.id}`);
  await signIn(page, "Console lead");
  await page.getByLabel("Title").fill("Console lead, 12 chairs");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status")).toHaveText("Saved: version 2.");
  await expect(page.getByRole("heading", { name: "Console lead, 12 chairs" })).toBeVisible();

  // Someone else changes the lead through the API while the page shows version 2.
  const current = (await (await request.get(`/api/public/v1/leads/${lead.id}`, { headers: auth })).json()) as {
    etag: string;
  };
  const other = await request.patch(`/api/public/v1/leads/${lead.id}`, {
    headers: { ...auth, "if-match": current.etag },
    data: { next_action: "Call Vera on Monday" },
  });
  expect(other.status()).toBe(200);

  await page.getByLabel("Title").fill("My late edit");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "changed by someone else" })).toBeVisible();
  const api = (await (await request.get(`/api/public/v1/leads/${lead.id}`, { headers: auth })).json()) as {
    title: string;
    version: number;
  };
  expect([api.title, api.version]).toEqual(["Console lead, 12 chairs", 3]);
  await page.getByRole("button", { name: "Reload" }).click();
  await expect(page.getByLabel("Next action")).toHaveValue("Call Vera on Monday");
  await expect(page.getByText(/Version 3/)).toBeVisible();
  await page.screenshot({ path: "test-results/lead.png", fullPage: true });
});

test("scores a lead with the Score button: the grade shows and the scorings list grows", async ({ page, request }) => {
  const { apiKey, tenantId } = demo();
  await operatorCli("preview:set", "--tenant", tenantId, "--feature", "leads-writes", "--enabled", "true");
  const made = await request.post("/api/public/v1/leads", {
    headers: { authorization: `Bearer ${apiKey}`, "idempotency-key": crypto.randomUUID() },
    data: { title: "Lead to score", contact: { first_name: "Ivan", email: "ivan@example.com", phone: "+79990001122" } },
  });
  expect(made.status()).toBe(201);
  const lead = (await made.json()) as { id: string };

  await page.goto(`/console/leads/${lead.id}`);
  await signIn(page, "Lead to score");
  await expect(page.getByTestId("lead-score")).toHaveText("Not scored yet.");
  await page.getByRole("button", { name: "Score", exact: true }).click();
  await expect(page.getByRole("status")).toHaveText(/^Scored: [A-D] \(\d+\) for 2\.00 RUB\.$/);
  await expect(page.getByTestId("lead-score")).toHaveText(/^[A-D] \(\d+\) \S/);
  await expect(page.getByRole("region", { name: "Scores", exact: true }).getByRole("row")).toHaveCount(2);
});
