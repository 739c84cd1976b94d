import { readLimited, BodyTooLargeError } from "@/server/lib/read-limited";
import { log } from "@/server/log";
import { callerIp } from "@/server/lib/client-ip";
import { refusedCharacterErrors } from "@/server/lib/control-characters";
import { AUTH_CLIENT_ADDRESS_HEADER, type Auth } from "./auth";
import { takeSignInAttempt } from "./sign-in-limits";

/**
 * Largest body accepted by any POST of the sign-in library, bytes (an email and a password, a name, or a
 * password change fit many times over).
 */
export const MAX_AUTH_BODY_BYTES = 16 * 1024;

/** Seconds a client should wait when the limit store cannot be reached. */
const STORE_DOWN_RETRY_S = 5;

const SIGN_UP = /^\/sign-up(\/|$)/;
const SIGN_IN = /^\/sign-in(\/|$)/;
/** Asking for a password reset mail, and setting a new password with its token (better-auth's routes). */
const PASSWORD_RESET = /^\/(request-password-reset|reset-password)$/;
const ORGANIZATION = /^\/organization(\/|$)/;

/** An answer in the sign-in library's error shape (`{code, message}`), which its client shows. */
function refuse(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ code, message }, { status, headers: { "cache-control": "no-store", ...headers } });
}

/**
 * The HTTP door of console sign-in (`/api/auth/*`), in front of better-auth:
 * - sign-up paths answer 403 `SIGN_UP_DISABLED` (accounts are made by an operator or through an
 *   invitation; issue 23 item 4);
 * - the organization plugin's routes (`/organization/*`) answer 404: the team is managed through the
 *   console's tRPC procedures, which check our rights and then call the plugin on the server
 *   (server/auth/team-plugin.ts);
 * - the caller's address is ours to decide: the TCP peer stamped by server/http-server.ts, or under
 *   `TRUST_PROXY=N` the Nth X-Forwarded-For entry from the right (server/public-api/client-ip.ts); it
 *   reaches the library's own limiter in {@link AUTH_CLIENT_ADDRESS_HEADER}, a client's copy removed;
 * - a sign-in attempt is counted per address and per account (server/auth/sign-in-limits.ts) before
 *   the password is checked: 429 with `Retry-After` when a limit is full, 503 when the limit store is
 *   unreachable (fail closed). Its body is read up to {@link MAX_AUTH_BODY_BYTES} (413 beyond) and
 *   must be JSON with the email as a string, so no other encoding slips past the account limit;
 * - asking for a password reset mail counts the same way (per address, and per account of the email
 *   asked for), so the form cannot be used to flood someone's mailbox; setting a new password with a
 *   reset token counts per address (issue 76 item 2);
 * - every POST body is read up to {@link MAX_AUTH_BODY_BYTES} and, when it is JSON, refused with 400
 *   `INVALID_REQUEST` naming the field if any string or key holds a control character
 *   (server/lib/control-characters.ts), as every other door of ours does (issue 76 item 4): PostgreSQL
 *   refuses U+0000, so a name or email holding one must not reach the library's INSERT or UPDATE.
 */
export async function handleAuthRequest(auth: Auth, request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/^\/api\/auth/, "");
  if (SIGN_UP.test(path)) {
    return refuse(
      403,
      "SIGN_UP_DISABLED",
      "Sign-up is closed: an operator creates staff accounts, and a tenant's team is joined by invitation.",
    );
  }
  if (ORGANIZATION.test(path)) return refuse(404, "NOT_FOUND", "Not found.");
  const headers = new Headers(request.headers);
  headers.delete(AUTH_CLIENT_ADDRESS_HEADER);
  const address = callerIp(request.headers);
  if (address) headers.set(AUTH_CLIENT_ADDRESS_HEADER, address);
  const reset = PASSWORD_RESET.test(path);
  if (request.method !== "POST") return auth.handler(new Request(request, { headers }));

  let bytes: Uint8Array;
  try {
    bytes = await readLimited(request, MAX_AUTH_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLargeError)
      return refuse(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${MAX_AUTH_BODY_BYTES} bytes.`);
    throw err;
  }
  const body = jsonOf(bytes, headers.get("content-type"));
  const refused = refusedCharacterErrors(body);
  if (refused.length)
    return refuse(
      400,
      "INVALID_REQUEST",
      `${refused.map((e) => (e.field || "the body") + " " + e.message).join("; ")}.`,
    );
  const forward = () =>
    auth.handler(
      new Request(request.url, { method: "POST", headers, body: bytes as BodyInit, signal: request.signal }),
    );
  if (!(SIGN_IN.test(path) || reset)) return forward();
  let email: string | null = null;
  if (path === "/sign-in/email" || path === "/request-password-reset") {
    email = emailOf(body);
    if (email === null)
      return refuse(
        400,
        "INVALID_REQUEST",
        `Send the email${reset ? "" : " and password"} as JSON with Content-Type: application/json.`,
      );
  }
  let attempt;
  try {
    attempt = await takeSignInAttempt({ address, email });
  } catch (err) {
    log().warn({ err: (err as Error).message }, "sign-in limit store unreachable");
    return refuse(503, "SERVICE_UNAVAILABLE", "Sign-in is unavailable for a moment; try again shortly.", {
      "retry-after": String(STORE_DOWN_RETRY_S),
    });
  }
  if (!attempt.allowed) {
    const scope = attempt.limit === "account" ? "for this account" : "from this address";
    return refuse(
      429,
      "TOO_MANY_REQUESTS",
      `Too many ${reset ? "password reset" : "sign-in"} attempts ${scope}; try again in ${attempt.retryAfterS} s.`,
      {
        "retry-after": String(attempt.retryAfterS),
        "x-retry-after": String(attempt.retryAfterS),
      },
    );
  }
  return forward();
}

/** The parsed body when it is declared and well-formed JSON; undefined otherwise (the library refuses it). */
function jsonOf(bytes: Uint8Array, contentType: string | null): unknown {
  if (!contentType || contentType.split(";")[0].trim().toLowerCase() !== "application/json") return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/** The email of a parsed JSON sign-in body, or null when the body was not JSON or has no string email. */
function emailOf(body: unknown): string | null {
  const email = body && typeof body === "object" ? (body as { email?: unknown }).email : undefined;
  return typeof email === "string" ? email.trim().toLowerCase() : null;
}
