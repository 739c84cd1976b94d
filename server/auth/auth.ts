import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "@/db/client";
import { getDb } from "@/db/client";
import { staffAccounts, staffSessions, staffUsers, staffVerifications } from "@/db/schema";
import { env } from "@/server/env";

/**
 * Console sign-in for staff, owned by better-auth (password hashing, sessions, cookies, CSRF origin
 * checks); we only map its four models onto our `staff_*` tables.
 */
export function createAuth(db: Db) {
  const e = env();
  const origin = e.cellOrigins[e.cell];
  return betterAuth({
    appName: "Platform console",
    baseURL: origin,
    basePath: "/api/auth",
    secret: e.appSecret,
    trustedOrigins: [origin],
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: { user: staffUsers, session: staffSessions, account: staffAccounts, verification: staffVerifications },
    }),
    emailAndPassword: { enabled: true, minPasswordLength: 10, autoSignIn: false },
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    // Production cookies are Secure even if an origin was misconfigured as http: sign-in then fails
    // visibly instead of sending the session in clear text.
    advanced: { useSecureCookies: e.nodeEnv === "production" || origin.startsWith("https://"), database: { generateId: () => crypto.randomUUID() } },
    telemetry: { enabled: false },
  });
}

/** The sign-in library bound to a database. */
export type Auth = ReturnType<typeof createAuth>;

const KEY = Symbol.for("platform.auth");
type Holder = { [KEY]?: Promise<Auth> };

/** The process-wide sign-in instance over the process-wide database. */
export function auth(): Promise<Auth> {
  const g = globalThis as Holder;
  return (g[KEY] ??= getDb().then(createAuth));
}
