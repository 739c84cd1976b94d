import { expect, test } from "@playwright/test";
import { demo, signIn } from "./sign-in";
import { operatorCli } from "./operator-cli";

// Paid operations in the console (issue 17): with the conversation-writes preview on, a customer message
// answered by the AI seller is an operation the console lists with its status, cost and conversation.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

test("a customer message answered by the AI seller shows up as a succeeded, charged operation", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { tenantId, apiKey } = demo();
  const { stdout } = await operatorCli(
    "preview:set",
    "--tenant",
    tenantId,
    "--feature",
    "conversation-writes",
    "--enabled",
    "true",
  );
  expect(JSON.parse(stdout)).toEqual({
    tenant_id: tenantId,
    preview: expect.objectContaining({ "conversation-writes": true, "test-mode": false }),
  });

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
  await signIn(page, /^Operations$/);
  const row = page.getByTestId("operations").locator("tbody tr", { hasText: conversationId });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("succeeded");
  await expect(row).toContainText(answer.operation.usage.cost.amount);
  await page.screenshot({ path: "test-results/operations.png", fullPage: true });
});
