import { expect, test } from "@playwright/test";
import { seriousViolations } from "./axe";
import { demo, signIn } from "./sign-in";

// The console's Strategist page (issue 73 item 5), as the demo owner, with no preview: "Strategist" in the
// navigation opens it; a seeded report opens as readable text (summary, highlights, concerns, the actions
// it recommends with their check, the data's dates); "New session" starts a chat, the message form shows
// the most a turn costs, Send runs a paid turn whose reply and cost appear when it finishes (the page
// follows it); the turn's first proposal is confirmed there, names the topic it created, and that topic is
// approved in Topics. The proposal and the topic are the ones this run's turn made, so a rerun on the same
// data decides fresh ones (the analyst never proposes an open topic's title again).

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("reads a report, chats with the strategist, confirms its proposal and approves the topic", async ({ page }) => {
  test.setTimeout(90_000);
  const { tenantId } = demo();
  await page.goto(`/console/leads?tenant=${tenantId}`);
  await signIn(page, "Leads");
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Strategist" }).click();
  await expect(page.getByRole("heading", { name: "Strategist", level: 1 })).toBeVisible();
  // A section of the page by its heading (its table's scrolling box bears the same name).
  const section = (name: string) =>
    page.locator("section").filter({ has: page.getByRole("heading", { name, level: 2, exact: true }) });

  // A report, as text: the seeded ones recommend "Refresh the trail shoes guide" and mask the competitor.
  const reports = section("Reports");
  await reports
    .getByRole("button", { name: /^Open the report of / })
    .first()
    .click();
  const report = page.getByTestId("strategist-report");
  await expect(report.getByRole("heading", { name: /(Daily|Weekly) report of \d{4}-\d{2}-\d{2}/ })).toBeVisible();
  await expect(report.getByRole("heading", { name: "Highlights" })).toBeVisible();
  await expect(report.getByRole("heading", { name: "Recommended actions" })).toBeVisible();
  await expect(report.getByRole("heading", { name: "Data as of" })).toBeVisible();
  await expect(report).toContainText(/Check after \d+ days/);
  await expect(report).not.toContainText("{");

  // A new session and a paid turn: the quote before Send, "running…" while it runs, then reply and cost.
  const chat = section("Chat");
  await chat.getByRole("button", { name: "New session", exact: true }).click();
  await expect(chat.getByText("No messages yet.", { exact: false })).toBeVisible();
  await expect(chat.getByTestId("turn-quote")).toContainText(/Up to \d+\.\d{2} RUB/);
  await chat.getByLabel("Message", { exact: true }).fill("Which topics should we write about next?");
  await chat.getByRole("button", { name: "Send", exact: true }).click();
  const turn = chat.getByTestId("strategist-turn").last();
  await expect(turn).toContainText("Which topics should we write about next?");
  await expect(turn.getByTestId("strategist-reply")).toBeVisible({ timeout: 45_000 });
  await expect(turn.getByTestId("turn-cost")).toHaveText(/Cost: \d+\.\d{2} RUB/);
  await expect(chat.getByRole("button", { name: "Send", exact: true })).toBeDisabled(); // empty message
  expect(await seriousViolations(page), "strategist page with a finished turn").toEqual([]);
  await turn.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/console-strategist-chat.png", fullPage: true });

  // Confirm the turn's first proposal: it is executed and names the topic it created.
  const proposal = turn.getByTestId("turn-action").first();
  await proposal.getByRole("button", { name: /^Confirm / }).click();
  const created = proposal.getByText(/^Topic created: /);
  await expect(created).toContainText(/“.+” \(proposed\)/);
  await expect(proposal.locator(".badge")).toHaveText("executed");
  const title = /“(.+)”/.exec((await created.textContent()) ?? "")![1]!;

  // Approve that topic in Topics (newest first, so it is on top).
  const topics = section("Topics");
  const row = topics.getByRole("row").filter({ hasText: title });
  await row.getByRole("button", { name: `Approve ${title}`, exact: true }).click();
  await expect(row.locator(".badge")).toHaveText("approved");
  await expect(row.getByRole("button", { name: `Reject ${title}`, exact: true })).toBeVisible();
  await expect(created).toContainText("(approved)");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: "test-results/console-strategist-decided.png", fullPage: true });
});
