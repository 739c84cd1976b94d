/**
 * The console's "Test mode" switch (issue 69 item 6), carried to the server in one cookie so that every
 * way the console reaches the server sees it alike: the tRPC calls of the browser and the server
 * components' prefetches of the first paint (both build their context from the request's headers).
 *
 * The cookie only asks: the server puts the staff actor in the sandbox (`livemode: false`) when it is set
 * AND the tenant has the preview `test-mode` (server/services/tenants/memberships.ts); for any other
 * tenant it is ignored. It is no secret and grants nothing, so the page's script writes it.
 */

/** Name of the cookie; its only meaningful value is {@link CONSOLE_TEST_MODE_VALUE}. */
export const CONSOLE_MODE_COOKIE = "console_mode";

/** The cookie's value when the switch is on. */
export const CONSOLE_TEST_MODE_VALUE = "test";

/** How long the switch stays as set, seconds (a year: it is a preference, like Stripe's). */
export const CONSOLE_MODE_MAX_AGE_S = 365 * 24 * 3600;

/**
 * True when a `Cookie` header (`a=1; console_mode=test`) asks for Test mode. Absent, empty or any
 * other value = live.
 */
export function testModeRequested(cookieHeader: string | null | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(";").some((part) => part.trim() === `${CONSOLE_MODE_COOKIE}=${CONSOLE_TEST_MODE_VALUE}`);
}

/**
 * The `document.cookie` assignment that sets the switch (`on`) or clears it: Path=/ (the tRPC door is
 * under /api), SameSite=Lax, Secure on an https page.
 */
export function consoleModeCookie(on: boolean, secure: boolean): string {
  const attrs = `Path=/; SameSite=Lax${secure ? "; Secure" : ""}`;
  return on
    ? `${CONSOLE_MODE_COOKIE}=${CONSOLE_TEST_MODE_VALUE}; ${attrs}; Max-Age=${CONSOLE_MODE_MAX_AGE_S}`
    : `${CONSOLE_MODE_COOKIE}=; ${attrs}; Max-Age=0`;
}
