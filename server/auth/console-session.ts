import "server-only";
import { and, eq } from "drizzle-orm";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "@/db/client";
import { memberships, tenants } from "@/db/schema";
import { testModeRequested } from "@/server/lib/console-mode";
import { TEST_MODE_PREVIEW } from "@/server/services/tenants/memberships";
import { auth } from "./auth";

/** The signed-in staff user of a console page and the tenants they may act in. */
export interface ConsoleSession {
  staff: { id: string; email: string; name: string };
  tenants: { id: string; name: string }[];
  /** The tenant chosen by `?tenant=` (when the user belongs to it), else their first one; null with none. */
  tenantId: string | null;
  /** The user's rights in that tenant (empty with none): the shell shows only what they may do. */
  rights: string[];
  /**
   * The console's Test mode in that tenant (issue 69 item 6): `available` when the tenant has the preview
   * `test-mode` (the shell shows the switch); `on` when the switch is on there, so every page shows the
   * sandbox under the "Test data" banner. The same rule as the tRPC actor's (staffMembership).
   */
  testMode: { available: boolean; on: boolean };
}

/**
 * For console pages: the session, or a redirect to sign-in (coming back to `returnTo` afterwards).
 * @param requested the `tenant` search parameter of the page.
 */
export async function requireConsoleSession(returnTo: string, requested?: string | string[]): Promise<ConsoleSession> {
  const h = await headers();
  const session = await (await auth()).api.getSession({ headers: h });
  if (!session) redirect(`/console/sign-in?next=${encodeURIComponent(returnTo)}`);
  const db = await getDb();
  const list = await db
    .select({ id: tenants.id, name: tenants.name, rights: memberships.rights, previews: tenants.previews })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(and(eq(memberships.staffUserId, session.user.id), eq(memberships.active, true)))
    .orderBy(tenants.name);
  const want = typeof requested === "string" ? requested : undefined;
  const chosen = list.find((t) => t.id === want) ?? list[0];
  const available = chosen?.previews.includes(TEST_MODE_PREVIEW) ?? false;
  return {
    staff: { id: session.user.id, email: session.user.email, name: session.user.name },
    tenants: list.map((t) => ({ id: t.id, name: t.name })),
    tenantId: chosen?.id ?? null,
    rights: chosen?.rights ?? [],
    testMode: { available, on: available && testModeRequested(h.get("cookie")) },
  };
}

/** For public console pages (an invitation link): the signed-in staff user, or null; never redirects. */
export async function optionalConsoleStaff(): Promise<ConsoleSession["staff"] | null> {
  const session = await (await auth()).api.getSession({ headers: await headers() });
  return session ? { id: session.user.id, email: session.user.email, name: session.user.name } : null;
}
