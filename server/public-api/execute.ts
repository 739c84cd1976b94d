import type { Db } from "@/db/client";
import { ApiError, type ErrorCode } from "@/server/errors";
import { fingerprint } from "@/server/lib/canonical-json";
import { afterCommit } from "@/server/services/events/work-notifier";
import {
  abandonIdempotency,
  beginIdempotency,
  completeIdempotency,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_RENEW_EVERY_MS,
  renewIdempotencyLock,
  type IdempotencyScope,
} from "@/server/services/idempotency/idempotency";
import {
  firstUseCompletion,
  idempotencyCompletion,
  isKeyUsedBefore,
  recordFirstUse,
} from "@/server/services/idempotency/one-statement";
import { log } from "@/server/log";
import { livemodeOf } from "@/server/services/tenant-scope";
import { idempotencyMode, type AnyRoute, type Reply, type RouteContext } from "./define-route";

/** A well-formed `Idempotency-Key`: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX}}$`);

/** Codes of the idempotency rules on a route: 400 for a malformed or missing key, 409 for a conflict or a run in progress. */
export function idempotencyProblems(route: AnyRoute): ErrorCode[] {
  const mode = idempotencyMode(route);
  if (mode === "none") return [];
  return [
    "bad_request",
    "idempotency_conflict",
    "operation_in_progress",
    ...(mode === "required" ? (["idempotency_key_required"] as const) : []),
  ];
}

/**
 * Runs a route's handler (spec "Limits: idempotency rules"): reads as they are; writes in one
 * transaction whose events are announced to the jobs driver after the commit; with an `Idempotency-Key`,
 * under its record — a replay rebuilds the earlier answer from the resource's current state (marked
 * `replayed`, which the answer shows as `Idempotent-Replayed: true`), a failed run frees the key.
 * A read answers as its handler does: without a promise when the handler had everything in hand.
 * @throws what the handler throws; ApiError 409 `idempotency_conflict` / `operation_in_progress`.
 */
export function executeRoute(
  route: AnyRoute,
  ctx: RouteContext<unknown, unknown, unknown>,
  idemKey: string | null,
  rawBody: unknown,
  opts: { renewEveryMs?: number } = {},
): Reply | Promise<Reply> {
  if (route.method === "GET") return route.handler(ctx);
  return executeWriteAndSettle(route, ctx, idemKey, rawBody, opts);
}

/**
 * {@link executeRoute} for a write: run by {@link executeWrite}, its due work announced after the commit
 * (`afterCommit`), then its `settle` when it has one.
 */
async function executeWriteAndSettle(
  route: AnyRoute,
  ctx: RouteContext<unknown, unknown, unknown>,
  idemKey: string | null,
  rawBody: unknown,
  opts: { renewEveryMs?: number },
): Promise<Reply> {
  const reply = await afterCommit(() =>
    executeWrite(route, ctx, idemKey, rawBody, opts.renewEveryMs ?? IDEMPOTENCY_RENEW_EVERY_MS),
  );
  if (!reply.settle) return reply;
  const settled = await reply.settle();
  return reply.replayed ? { ...settled, replayed: true } : settled;
}

async function executeWrite(
  route: AnyRoute,
  ctx: RouteContext<unknown, unknown, unknown>,
  idemKey: string | null,
  rawBody: unknown,
  renewEveryMs: number,
): Promise<Reply> {
  const db = ctx.db;
  if (!idemKey) {
    if (route.before) await route.before(ctx);
    if (route.oneStatement) return route.handler(ctx);
    return db.transaction(async (tx) => route.handler({ ...ctx, db: tx as Db }));
  }
  const scope: IdempotencyScope = {
    tenantId: ctx.actor.tenantId,
    livemode: livemodeOf(ctx.actor),
    keyMode: ctx.actor.keyMode,
    scope: `integration:${ctx.actor.integrationId}`,
    key: idemKey,
    fingerprint: fingerprint({ method: route.method, path: ctx.url.pathname, body: rawBody ?? null }),
  };
  // Not with `before`: it runs once per request and never for a replay, which this try cannot tell yet.
  if (route.oneStatement && route.recordsKey && !route.before) {
    const reply = await firstUse(route, ctx, scope);
    if (reply) return reply;
  }
  const begin = await beginIdempotency(db, scope);
  if (begin.kind === "replay") {
    // Marked, so that the answer says it is a replay (`Idempotent-Replayed: true`, issue 75 item 6).
    if (!route.replay || !begin.resourceId) return { status: begin.status, replayed: true };
    return { ...(await route.replay(ctx, begin.resourceId, begin.status)), replayed: true };
  }
  // While the handler runs, its lock is renewed outside its transaction, so a slow request is never
  // taken over by a retry and run twice (spec "Limits": same key while running → operation_in_progress).
  const recordId = begin.recordId;
  const renewal = setInterval(() => {
    renewIdempotencyLock(db, recordId).catch((err: unknown) =>
      log().warn({ err: (err as Error).message }, "renewing an idempotency lock failed"),
    );
  }, renewEveryMs);
  try {
    if (route.before) await route.before(ctx);
    if (route.oneStatement) {
      const completion = idempotencyCompletion(recordId);
      const reply = await route.handler({ ...ctx, completion });
      if (!completion.taken) await completeIdempotency(db, recordId, reply.status, reply.resource);
      return reply;
    }
    return await db.transaction(async (tx) => {
      const reply = await route.handler({ ...ctx, db: tx as Db });
      await completeIdempotency(tx as Db, recordId, reply.status, reply.resource);
      return reply;
    });
  } catch (err) {
    await abandonIdempotency(db, recordId).catch(() => {});
    throw err;
  } finally {
    clearInterval(renewal);
  }
}

/**
 * A `recordsKey` route under a key, tried as the key's first use: the handler's one statement makes the
 * resource and the key's record, already completed, together (one round trip and one commit in all; issue
 * 22). A key used before makes that statement fail and change nothing; so does any refusal of the handler.
 * Both return null, and the caller takes the full path (`beginIdempotency`), which tells a replay, a
 * conflict or a run in progress apart, and runs the handler again where the key is new to it. A concurrent
 * request with the same key waits on the first one's uncommitted record, then finds it completed: a replay.
 * @returns the reply, or null to take the full path
 * @throws what the handler throws but a refusal (ApiError below 500) or the failure of a used key
 */
async function firstUse(
  route: AnyRoute,
  ctx: RouteContext<unknown, unknown, unknown>,
  scope: IdempotencyScope,
): Promise<Reply | null> {
  const completion = firstUseCompletion(scope);
  try {
    const reply = await route.handler({ ...ctx, completion });
    // A handler that answered without writing (`recordsKey`) still leaves a record that replays; when the
    // key was used before, the full path answers (a replay or a conflict) as it would have.
    if (!completion.taken && !(await recordFirstUse(ctx.db, scope, reply.status, reply.resource))) return null;
    return reply;
  } catch (err) {
    if ((err instanceof ApiError && err.status < 500) || isKeyUsedBefore(err)) return null;
    throw err;
  }
}
