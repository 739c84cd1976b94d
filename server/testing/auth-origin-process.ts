import { createAuth } from "@/server/auth/auth";
import { handleAuthRequest } from "@/server/auth/handler";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant } from "./fixtures";
import { openTestDatabase, setTestEnv } from "./test-db";

// A child process of server/auth/own-origin.int.test.ts (issue 76 item 5). The sign-in library skips its
// own origin check when it runs under test (NODE_ENV=test or TEST set), so that check is exercised here,
// in a process started without them. Usage: node --import tsx server/testing/auth-origin-process.ts
// <configured origin> <Host the request arrives with> <origin>... Prints one JSON line: for each origin,
// the status of a sign-out sent from it with a live session cookie, and whether the session then still
// worked.

async function main() {
  const [configured, host, ...origins] = process.argv.slice(2);
  const db = await openTestDatabase();
  setTestEnv({ CELL_ORIGIN_RU: configured });
  const t = await makeTenant(db.db);
  await createStaffMember(db.db, {
    tenantId: t.tenantId,
    email: "owner@origin.example",
    password: "correct-horse-battery",
    name: "O",
  });
  const auth = createAuth(db.db);
  const results: { origin: string; status: number; sessionAfter: boolean }[] = [];
  for (const origin of origins) {
    const signedIn = await auth.api.signInEmail({
      body: { email: "owner@origin.example", password: "correct-horse-battery" },
      asResponse: true,
    });
    const cookie = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    // As Next.js hands it over: the URL built from the configured host name, the Host the client sent.
    const res = await handleAuthRequest(
      auth,
      new Request(`${configured}/api/auth/sign-out`, {
        method: "POST",
        headers: { cookie, origin, host, "content-type": "application/json" },
        body: "{}",
      }),
    );
    const session = await auth.api.getSession({ headers: new Headers({ cookie }) });
    results.push({ origin, status: res.status, sessionAfter: session !== null });
  }
  await db.drop();
  console.log(JSON.stringify({ nodeEnv: process.env.NODE_ENV, results }));
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
