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
 * for `landing` (a heading of the page asked for; a string matches exactly). Sign-in is limited per account
 * and address (10 a minute; server/auth/sign-in-limits.ts and better-auth's own window), and the whole e2e
 * run signs the owner in more often than that, so when the page says "Too many …" this waits as long as
 * it says ("try again in N s"; 11 s when it does not) and tries again, up to three times.
 */
export async function signIn(
  page: Page,
  landing: string | RegExp,
  who: { email: string; password: string } = demo().staff,
): Promise<void> {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  const there = page.getByRole("heading", { name: landing, exact: typeof landing === "string" }).first();
  const limited = page.getByText(/Too many/);
  for (let attempt = 0; ; attempt++) {
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(there.or(limited)).toBeVisible();
    if (!(await limited.isVisible()) || attempt === 3) break;
    const seconds = Number(/try again in (\d+) s/.exec((await limited.textContent()) ?? "")?.[1] ?? 10);
    await page.waitForTimeout((seconds + 1) * 1000);
  }
  await expect(there).toBeVisible();
}
