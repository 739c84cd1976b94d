import "server-only";
import { and, eq } from "drizzle-orm";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "@/db/client";
import { memberships, tenants } from "@/db/schema";
import { auth } from "./auth";

/** The signed-in staff user of a console page and the tenants they may act in. */
export interface ConsoleSession {
  staff: { id: string; email: string; name: string };
  tenants: { id: string; name: string }[];
  /** The tenant chosen by `?tenant=` (when the user belongs to it), else their first one; null with none. */
  tenantId: string | null;
}

/**
 * For console pages: the session, or a redirect to sign-in (coming back to `returnTo` afterwards).
 * @param requested the `tenant` search parameter of the page.
 */
export async function requireConsoleSession(returnTo: string, requested?: string | string[]): Promise<ConsoleSession> {
  const session = await (await auth()).api.getSession({ headers: await headers() });
  if (!session) redirect(`/console/sign-in?next=${encodeURIComponent(returnTo)}`);
  const db = await getDb();
  const list = await db
    .select({ id: tenants.id, name: tenants.name })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(and(eq(memberships.staffUserId, session.user.id), eq(memberships.active, true)))
    .orderBy(tenants.name);
  const want = typeof requested === "string" ? requested : undefined;
  const tenantId = list.find((t) => t.id === want)?.id ?? list[0]?.id ?? null;
  return {
    staff: { id: session.user.id, email: session.user.email, name: session.user.name },
    tenants: list,
    tenantId,
  };
}

/** For public console pages (an invitation link): the signed-in staff user, or null; never redirects. */
export async function optionalConsoleStaff(): Promise<ConsoleSession["staff"] | null> {
  const session = await (await auth()).api.getSession({ headers: await headers() });
  return session ? { id: session.user.id, email: session.user.email, name: session.user.name } : null;
}
