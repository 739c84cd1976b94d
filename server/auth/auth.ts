import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "@/db/client";
import { getDb } from "@/db/client";
import {
  memberships,
  staffAccounts,
  staffInvitations,
  staffSessions,
  staffUsers,
  staffVerifications,
  tenants,
} from "@/db/schema";
import { env } from "@/server/env";
import { requestOrigin } from "@/server/lib/request-origin";
import { STAFF_PASSWORD_MAX, STAFF_PASSWORD_MIN } from "@/server/services/tenants/staff";
import {
  hashVerificationIdentifier,
  mailPasswordReset,
  PASSWORD_RESET_TTL_S,
} from "@/server/services/tenants/staff-password-reset";
import { teamPlugin } from "./team-plugin";

/**
 * Request header carrying the caller's address to the sign-in library's own per-address limit. Only
 * {@link handleAuthRequest} (server/auth/handler.ts) sets it, from our TCP peer stamp or, under
 * `TRUST_PROXY`, from X-Forwarded-For; a copy sent by a client is always replaced or removed.
 */
export const AUTH_CLIENT_ADDRESS_HEADER = "x-service-auth-client-address";

/**
 * Console sign-in for staff, owned by better-auth (password hashing, sessions, cookies, CSRF origin
 * checks); we only map its four models onto our `staff_*` tables.
 * - Sign-up is off: accounts are created by an operator (`createStaffMember`) or through an invitation
 *   (`createInvitedAccount`); memberships come from invitations accepted through the organization plugin
 *   (server/auth/team-plugin.ts); `POST /api/auth/sign-up/email` is refused here and in the handler.
 * - The session cookie follows the scheme of this cell's configured origin: `Secure` (with the
 *   `__Secure-` prefix) when it is https, whatever the scheme of the hop from a TLS-terminating proxy;
 *   production is always `Secure`.
 * - The library's own per-address limit reads the address from {@link AUTH_CLIENT_ADDRESS_HEADER},
 *   never from a client-controlled X-Forwarded-For; our per-address and per-account limits sit in
 *   front of it (server/auth/sign-in-limits.ts).
 * - Password reset is the library's (issue 76 item 2): `request-password-reset` mails a one-time link to
 *   the account's own address (server/services/tenants/staff-password-reset.ts; nothing is sent without
 *   `SMTP_URL`, and the answer is the same whether the email has an account or not), the link works for
 *   an hour, once, and setting the new password ends every session of the account. One-time tokens are
 *   stored as SHA-256 of their identifier, never in clear.
 */
export function createAuth(db: Db) {
  const e = env();
  const origin = e.cellOrigins[e.cell];
  return betterAuth({
    appName: "Platform console",
    baseURL: origin,
    basePath: "/api/auth",
    secret: e.appSecret,
    // The cell's origin, and the page's own origin however it was reached (`127.0.0.1:PORT` as well as
    // `localhost:PORT`), as for the console's tRPC calls (issue 76 item 5); called without a request at start.
    trustedOrigins: (request) => [origin, request ? requestOrigin(request) : null],
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: {
        user: staffUsers,
        session: staffSessions,
        account: staffAccounts,
        verification: staffVerifications,
        organization: tenants,
        member: memberships,
        invitation: staffInvitations,
      },
    }),
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: STAFF_PASSWORD_MIN,
      maxPasswordLength: STAFF_PASSWORD_MAX,
      autoSignIn: false,
      resetPasswordTokenExpiresIn: PASSWORD_RESET_TTL_S,
      revokeSessionsOnPasswordReset: true,
      // Not awaited: an answer that waited for the mail server only when the email has an account would
      // tell who has one. sendMail never throws (a failure is logged without the link).
      async sendResetPassword({ user, token }) {
        void mailPasswordReset({ email: user.email, token });
      },
    },
    verification: { storeIdentifier: { hash: hashVerificationIdentifier } },
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    // Production cookies are Secure even if an origin was misconfigured as http: sign-in then fails
    // visibly instead of sending the session in clear text.
    advanced: {
      useSecureCookies: e.nodeEnv === "production" || origin.startsWith("https://"),
      database: { generateId: () => crypto.randomUUID() },
      ipAddress: { ipAddressHeaders: [AUTH_CLIENT_ADDRESS_HEADER] },
    },
    plugins: [teamPlugin(db)],
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
