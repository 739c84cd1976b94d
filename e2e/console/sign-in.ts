import { readFileSync } from "node:fs";
import { expect, type Page } from "@playwright/test";

/** What `npm run demo` saved for the e2e run (.data/e2e/demo.json): the demo key and the owner's login. */
export interface DemoInfo {
  apiKey: string;
  tenantId: string;
  staff: { email: string; password: string };
}

/** The demo tenant of the e2e run. */
export function demo(): DemoInfo {
  return JSON.parse(readFileSync(".data/e2e/demo.json", "utf8")) as DemoInfo;
}

/**
 * Signs in on the sign-in page the browser was sent to, as `who` (the demo owner by default), and waits
 * for `landing` (a heading of the page asked for). Sign-in is limited to 10 attempts a minute per account
 * and address (better-auth's window), so on "Too many requests" it waits the window out once and retries.
 */
export async function signIn(
  page: Page,
  landing: string | RegExp,
  who: { email: string; password: string } = demo().staff,
): Promise<void> {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  const there = page.getByRole("heading", { name: landing }).first();
  const limited = page.getByText("Too many requests");
  await expect(there.or(limited)).toBeVisible();
  if (await limited.isVisible()) {
    await page.waitForTimeout(11_000);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await expect(there).toBeVisible();
}
