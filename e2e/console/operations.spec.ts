import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { expect, test, type Page } from "@playwright/test";

// Paid operations in the console (issue 17): with the conversation-writes preview on, a customer message
// answered by the AI seller is an operation the console lists with its status, cost and conversation.

const run = promisify(execFile);
const demo = () =>
  JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as {
    tenantId: string;
    apiKey: string;
    staff: { email: string; password: string };
  };
const admin = (...args: string[]) =>
  run("npx", ["tsx", "scripts/admin.ts", ...args, "--json"], {
    env: { ...process.env, PGLITE_DIR: ".data/e2e/pglite", DATABASE_URL: "" },
  }).catch((err: { message: string; stdout?: string }) => {
    throw new Error(`${err.message}\nstdout: ${err.stdout ?? ""}`);
  });

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

/** Signs in on the page that asked for it; waits out better-auth's sign-in window once if needed. */
async function signIn(page: Page) {
  const { staff } = demo();
  await page.getByLabel("Email").fill(staff.email);
  await page.getByLabel("Password").fill(staff.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  const there = page.getByRole("heading", { name: "Operations", exact: true }).first();
  const limited = page.getByText("Too many requests");
  await expect(there.or(limited)).toBeVisible();
  if (await limited.isVisible()) {
    await page.waitForTimeout(11_000);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await expect(there).toBeVisible();
}

test("a customer message answered by the AI seller shows up as a succeeded, charged operation", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { tenantId, apiKey } = demo();
  const { stdout } = await admin(
    "preview:set",
    "--tenant",
    tenantId,
    "--feature",
    "conversation-writes",
    "--enabled",
    "true",
  );
  expect(JSON.parse(stdout)).toEqual({ tenant_id: tenantId, preview: { "conversation-writes": true } });

  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const conversation = await request.post("/api/public/v1/conversations", {
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    data: { external_customer_id: `e2e-${Date.now()}`, name: "Anna" },
  });
  expect(conversation.status()).toBe(201);
  const conversationId = ((await conversation.json()) as { id: string }).id;
  const message = await request.post(`/api/public/v1/conversations/${conversationId}/messages?wait=10`, {
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    data: { content: "Do you have a warm jacket?" },
  });
  expect(message.status()).toBe(200);
  const answer = (await message.json()) as {
    ai_reply: { status: string };
    operation: { id: string; status: string; usage: { cost: { amount: string } } };
  };
  expect(answer.ai_reply.status).toBe("replied");
  expect(answer.operation.status).toBe("succeeded");

  await page.goto("/console/operations");
  await signIn(page);
  const row = page.getByTestId("operations").locator("tbody tr", { hasText: conversationId });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("succeeded");
  await expect(row).toContainText(answer.operation.usage.cost.amount);
  await page.screenshot({ path: "test-results/operations.png", fullPage: true });
});
