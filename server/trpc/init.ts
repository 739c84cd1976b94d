import { initTRPC, TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { getDb } from "@/db/client";
import { memberships } from "@/db/schema";
import { auth } from "@/server/auth/auth";
import { ApiError, notFound, type ErrorCode } from "@/server/errors";
import type { Right } from "@/server/services/access/scopes";
import type { Actor } from "@/server/services/actor";

/** Per-request context of the console's tRPC: the database and the signed-in staff user, if any. */
export interface TrpcContext {
  db: Db;
  staff: { id: string; email: string; name: string } | null;
}

/** Builds the context from the request headers (the better-auth session cookie). */
export async function createContext(headers: Headers): Promise<TrpcContext> {
  const db = await getDb();
  const session = await (await auth()).api.getSession({ headers });
  return { db, staff: session ? { id: session.user.id, email: session.user.email, name: session.user.name } : null };
}

/** Catalog code → tRPC code: the console shows the same errors as the API (DESIGN "one catalog, two mappings"). */
const TRPC_CODE: Partial<Record<ErrorCode, TRPCError["code"]>> = {
  bad_request: "BAD_REQUEST",
  validation_failed: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  scope_missing: "FORBIDDEN",
  pii_transfer_not_allowed: "FORBIDDEN",
  tenant_inactive: "FORBIDDEN",
  invalid_state: "CONFLICT",
  idempotency_conflict: "CONFLICT",
  operation_in_progress: "CONFLICT",
  rate_limited: "TOO_MANY_REQUESTS",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  service_unavailable: "SERVICE_UNAVAILABLE",
  upstream_unavailable: "SERVICE_UNAVAILABLE",
};

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause instanceof ApiError ? error.cause : null;
    return {
      ...shape,
      message: cause ? cause.message : error.code === "INTERNAL_SERVER_ERROR" ? "Something went wrong on our side." : shape.message,
      data: { ...shape.data, stack: undefined, code: cause?.code ?? (error.code === "INTERNAL_SERVER_ERROR" ? "internal_error" : null), errors: cause?.extras.errors ?? null },
    };
  },
});

/** Turns service errors (ApiError) into TRPCErrors carrying the catalog code. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof ApiError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.code] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors);

/** A signed-in staff user. */
export const staffProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.staff) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return next({ ctx: { ...ctx, staff: ctx.staff } });
});

/**
 * A staff user acting in one tenant (`input.tenantId`) where they hold an active membership; a tenant
 * they do not belong to reads as not found. Adds `actor` and the membership's `rights`.
 */
export const tenantProcedure = staffProcedure.input(z.object({ tenantId: z.uuid() })).use(async ({ ctx, input, next }) => {
  const [m] = await ctx.db
    .select({ rights: memberships.rights, role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, input.tenantId), eq(memberships.staffUserId, ctx.staff.id), eq(memberships.active, true)));
  if (!m) throw notFound("Tenant");
  const actor: Actor = { tenantId: input.tenantId, staffUserId: ctx.staff.id, via: "console" };
  return next({ ctx: { ...ctx, actor, rights: m.rights as Right[], role: m.role } });
});

/** {@link tenantProcedure} that also needs a right; without it: FORBIDDEN naming the right. */
export function withRight(right: Right) {
  return tenantProcedure.use(({ ctx, next }) => {
    if (!ctx.rights.includes(right)) throw new TRPCError({ code: "FORBIDDEN", message: `This needs the "${right}" right in this tenant.` });
    return next();
  });
}
