import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { env } from "@/server/env";
import { createContext } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * CSRF: the session cookie is SameSite=Lax, and a state-changing call must come from our own origin
 * (browsers always send Origin on POST); anything else is refused before a procedure runs.
 */
function sameOrigin(request: Request): boolean {
  if (request.method === "GET") return true;
  const origin = request.headers.get("origin");
  const own = new URL(request.url).origin;
  return origin === own || origin === env().cellOrigins[env().cell];
}

const handler = (request: Request) => {
  if (!sameOrigin(request)) return Response.json({ error: { message: "Cross-site request refused." } }, { status: 403 });
  return fetchRequestHandler({ endpoint: "/api/trpc", req: request, router: appRouter, createContext: ({ req }) => createContext(req.headers) });
};

export { handler as GET, handler as POST };
