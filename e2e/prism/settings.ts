// Ports of the end-to-end run, shared by playwright.config.ts, the Prism launcher and the API fixture.

/** Port of the app under test (`E2E_PORT`, default 3100). */
export const APP_PORT = Number(process.env.E2E_PORT ?? 3100);

/** Port of the Prism proxy (`E2E_PRISM_PORT`, default the app's port + 1). */
export const PRISM_PORT = Number(process.env.E2E_PRISM_PORT ?? APP_PORT + 1);

/**
 * `E2E_PRISM=1`: the API specs send every public API request through Stoplight Prism in proxy mode
 * (e2e/prism/proxy.ts), an independent validator of requests and answers against the served document.
 */
export const THROUGH_PRISM = process.env.E2E_PRISM === "1";

/** Where the launcher keeps the document Prism reads and Prism's log. */
export const PRISM_DIR = ".data/e2e/prism";
