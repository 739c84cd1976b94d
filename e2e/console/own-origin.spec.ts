import { expect, test } from "@playwright/test";
import { APP_PORT } from "../prism/settings";
import { demo, signIn } from "./sign-in";

// Issue 76 item 5 in a real browser against the production build: the console opened at
// 127.0.0.1:PORT (the demo's configured origin is localhost:PORT) signs in, writes and signs out, and a
// write from another origin is refused; and every kind of page sends the same security headers.

test.use({ trace: "retain-on-failure", screenshot: "only-on-failure" });

const AT_ADDRESS = `http://127.0.0.1:${APP_PORT}`;
/** The sign-in page at that address (with or without the page to come back to). */
const SIGN_IN_THERE = new RegExp(`^${AT_ADDRESS.replace(/\./g, "\\.")}/console/sign-in(\\?|$)`);

test("the console opened at 127.0.0.1 writes and signs out; another origin cannot write", async ({ page, request }) => {
  await page.goto(`${AT_ADDRESS}/console`);
  await expect(page).toHaveURL(SIGN_IN_THERE);
  await signIn(page, "Demo Shop");

  await page.getByRole("link", { name: "Integrations and keys" }).click();
  await expect(page.getByRole("heading", { name: "Integrations" })).toBeVisible();
  const name = `At 127.0.0.1 ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create integration" }).click();
  await expect(page.getByRole("link", { name })).toBeVisible();

  // The same call with the session cookie from a page of another site: refused, nothing created.
  const cookie = (await page.context().cookies(AT_ADDRESS)).map((c) => `${c.name}=${c.value}`).join("; ");
  const foreign = await request.post(`${AT_ADDRESS}/api/trpc/integrations.create`, {
    headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
    data: {
      tenantId: demo().tenantId,
      name: `${name} (foreign)`,
      role: "full",
      scopes: ["cards:read"],
      piiCountry: null,
      legalBasis: null,
      ipAllowlist: null,
    },
  });
  expect(foreign.status()).toBe(403);
  await page.reload();
  await expect(page.getByRole("link", { name })).toBeVisible();
  await expect(page.getByRole("link", { name: `${name} (foreign)` })).toHaveCount(0);

  // Signing out ends the session: the console asks to sign in again.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(SIGN_IN_THERE);
  await page.goto(`${AT_ADDRESS}/console`);
  await expect(page).toHaveURL(SIGN_IN_THERE);
});

test("every kind of page sends the same security headers over HTTP", async ({ request }) => {
  for (const path of [
    "/",
    "/console/sign-in",
    "/docs/api",
    "/developers/errors",
    `/pay/sandbox/${crypto.randomUUID()}`,
    "/no-such-page",
  ]) {
    const r = await request.get(path, { maxRedirects: 0 });
    const h = r.headers();
    expect(h["content-security-policy"], path).toContain("'nonce-");
    expect(h["x-frame-options"], path).toBe("DENY");
    expect(h["referrer-policy"], path).toBe("same-origin");
    expect(h["x-content-type-options"], path).toBe("nosniff");
  }
});
