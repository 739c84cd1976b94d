import { readFileSync } from "node:fs";
import { expect, type Locator, type Page } from "@playwright/test";

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
 * for `landing` (a heading of the page asked for; a string matches exactly), through the sign-in limits
 * ({@link submitThroughLimits}).
 */
export async function signIn(
  page: Page,
  landing: string | RegExp,
  who: { email: string; password: string } = demo().staff,
): Promise<void> {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  const there = page.getByRole("heading", { name: landing, exact: typeof landing === "string" }).first();
  await submitThroughLimits(page, page.getByRole("button", { name: "Sign in" }), there);
}

/**
 * Clicks `button` of a form that signs in and waits for `done`. Sign-in is limited per account and address
 * (server/auth/sign-in-limits.ts, and better-auth's own window of a few attempts in 10 s), and the whole
 * e2e run signs in from one address more often than that, so when the page says "Too many …" this waits as
 * long as it says ("try again in N s"; 11 s when it does not) and clicks again, up to three times.
 */
export async function submitThroughLimits(page: Page, button: Locator, done: Locator): Promise<void> {
  const limited = page.getByText(/Too many/);
  for (let attempt = 0; ; attempt++) {
    await button.click();
    await expect(done.or(limited)).toBeVisible();
    if (!(await limited.isVisible()) || attempt === 3) break;
    const seconds = Number(/try again in (\d+) s/.exec((await limited.textContent()) ?? "")?.[1] ?? 10);
    await page.waitForTimeout((seconds + 1) * 1000);
  }
  await expect(done).toBeVisible();
}
