import { initTRPC, TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Db } from "@/db/client";
import { getDb } from "@/db/client";
import { auth } from "@/server/auth/auth";
import { ApiError, type ErrorCode, type FieldError } from "@/server/errors";
import { testModeRequested } from "@/server/lib/console-mode";
import { refusedCharacterErrors } from "@/server/lib/control-characters";
import { validationError } from "@/server/lib/validation";
import type { Right } from "@/server/schemas/scopes";
import { seedSandbox } from "@/server/services/sandbox/seed-sandbox";
import { staffMembership } from "@/server/services/tenants/memberships";
import { TRPC_CODE } from "./error-map";

/** Per-request context of the console's tRPC: the database and the signed-in staff user, if any. */
export interface TrpcContext {
  db: Db;
  staff: { id: string; email: string; name: string } | null;
  /**
   * The request's headers (its session cookie): the team procedures hand them to the sign-in library's
   * organization plugin, which acts as the signed-in user. Absent in callers made without a request.
   */
  headers?: Headers;
  /**
   * The console's "Test mode" switch is on (its cookie, server/lib/console-mode.ts). Only a request for
   * it: {@link tenantProcedure} puts the actor in the sandbox when the tenant has the preview `test-mode`.
   * Absent = off.
   */
  testMode?: boolean;
}

/** Builds the context from the request headers (the better-auth session cookie, the Test mode cookie). */
export async function createContext(headers: Headers): Promise<TrpcContext> {
  const db = await getDb();
  const session = await (await auth()).api.getSession({ headers });
  return {
    db,
    staff: session ? { id: session.user.id, email: session.user.email, name: session.user.name } : null,
    headers,
    testMode: testModeRequested(headers.get("cookie")),
  };
}

/** RFC 6901 JSON Pointer of a schema issue's path (`["cursor", "createdAt"]` → `/cursor/createdAt`). */
function pointer(path: readonly unknown[] | undefined): string {
  return (path ?? [])
    .map(
      (p) =>
        `/${String(typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p)
          .replace(/~/g, "~0")
          .replace(/\//g, "~1")}`,
    )
    .join("");
}

/**
 * A procedure's input that failed its zod schema, as the catalog's `validation_failed` field errors;
 * null for any other error. tRPC passes the schema's error (with `issues`) as the cause.
 */
function inputErrors(error: TRPCError): FieldError[] | null {
  if (error.code !== "BAD_REQUEST") return null;
  const issues = (error.cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues) || !issues.length) return null;
  return issues.map((i: { path?: unknown[]; code?: unknown; message?: unknown }) => ({
    field: pointer(i.path),
    code: typeof i.code === "string" ? i.code : "invalid",
    message: typeof i.message === "string" ? i.message : "is invalid",
  }));
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause instanceof ApiError ? error.cause : null;
    const invalid = cause ? null : inputErrors(error);
    if (invalid) {
      // A 400 naming each field, never a 500 or a dump of the schema error (issue 23 item 6).
      const message = `Invalid input: ${invalid.map((e) => `${e.field || "input"}: ${e.message}`).join("; ")}.`;
      return {
        ...shape,
        message,
        data: { ...shape.data, stack: undefined, code: "validation_failed" as ErrorCode, errors: invalid },
      };
    }
    return {
      ...shape,
      message: cause
        ? cause.message
        : error.code === "INTERNAL_SERVER_ERROR"
          ? "Something went wrong on our side."
          : shape.message,
      data: {
        ...shape.data,
        stack: undefined,
        code: cause?.code ?? (error.code === "INTERNAL_SERVER_ERROR" ? "internal_error" : null),
        errors: cause?.extras.errors ?? null,
      },
    };
  },
});

/** Turns service errors (ApiError) into TRPCErrors carrying the catalog code. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof ApiError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
  }
  return result;
});

/**
 * Refuses, before anything else reads it, a call whose input holds a character no text may hold in any
 * string or key (U+0000, the other C0 controls but tab, line feed and carriage return, unpaired surrogates;
 * server/lib/control-characters.ts, issue 76 item 4): BAD_REQUEST (400) `validation_failed` naming each
 * such field by JSON Pointer. One check for every procedure, whatever its schema, so no console input
 * carries U+0000 to the database (where it was a 500).
 */
const refuseControlCharacters = t.middleware(async ({ getRawInput, next }) => {
  const errors = refusedCharacterErrors(await getRawInput());
  if (errors.length) throw validationError(errors);
  return next();
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors).use(refuseControlCharacters);

/** A signed-in staff user. */
export const staffProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.staff) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return next({ ctx: { ...ctx, staff: ctx.staff } });
});

/**
 * A staff user acting in one tenant (`input.tenantId`) where they hold an active membership; a tenant
 * they do not belong to reads as not found. Adds `actor` (in the sandbox, `livemode: false`, when the
 * Test mode switch is on and the tenant has the preview `test-mode`), the membership's `rights`, and
 * `testModeAvailable`. Procedures hand the actor to the services, which scope by its mode; none reads the
 * switch itself.
 */
export const tenantProcedure = staffProcedure
  .input(z.object({ tenantId: z.uuid() }))
  .use(async ({ ctx, input, next }) => {
    const { actor, role, testModeAvailable, sandboxSeeded } = await staffMembership(
      ctx.db,
      ctx.staff.id,
      input.tenantId,
      ctx.testMode === true,
    );
    // The console in Test mode seeds a never-used sandbox, as a test key's first request does, so every
    // page has sample data to show the first time the switch is turned on.
    if (actor.livemode === false && !sandboxSeeded) await seedSandbox(ctx.db, input.tenantId);
    return next({ ctx: { ...ctx, actor, rights: actor.rights, role, testModeAvailable } });
  });

/** {@link tenantProcedure} that also needs a right; without it: FORBIDDEN naming the right. */
export function withRight(right: Right) {
  return tenantProcedure.use(({ ctx, next }) => {
    if (!ctx.rights.includes(right))
      throw new TRPCError({ code: "FORBIDDEN", message: `This needs the "${right}" right in this tenant.` });
    return next();
  });
}
