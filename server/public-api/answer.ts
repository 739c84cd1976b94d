import { recordDisclosure } from "@/server/services/disclosures/disclosures";
import { livemodeOf } from "@/server/services/tenant-scope";
import type { CursorBinding } from "./cursor";
import { bindCursor, encodeCursor } from "./cursor";
import { JsonText, TextPage, type AnyRoute, type Reply, type RouteContext } from "./define-route";

/**
 * What a list route's cursor is bound to (spec "Limits: pagination rules"): tenant, key mode, route and
 * filter set; the filter set is every query parameter but `limit` and `cursor`, the path parameters
 * (messages of one conversation, deliveries of one subscription) and the calling integration (a cursor
 * "from another caller" is refused).
 */
export function cursorBinding(route: AnyRoute, ctx: RouteContext<unknown, unknown, unknown>): CursorBinding {
  // Made once a request, with its filter tag: the presented cursor is checked and the next one signed with it.
  if (ctx.walk) return ctx.walk;
  const { limit: _limit, cursor: _cursor, ...filters } = (ctx.query ?? {}) as Record<string, unknown>;
  ctx.walk = bindCursor({
    tenantId: ctx.actor.tenantId,
    keyMode: ctx.actor.keyMode,
    route: route.operationId,
    filters: { ...filters, ...(ctx.params as Record<string, unknown>), integration: ctx.actor.integrationId },
  });
  return ctx.walk;
}

/** The ids an answer carries: a page's `data[].id` or the single resource's `id`. */
function idsOf(body: unknown): readonly string[] {
  if (body instanceof TextPage) return body.ids;
  const b = body as { data?: { id?: unknown }[]; id?: unknown } | undefined;
  const items = Array.isArray(b?.data) ? b.data : b ? [b] : [];
  return items.map((i) => i?.id).filter((id): id is string => typeof id === "string");
}

/**
 * Turns a handler's reply into the HTTP answer: writes the disclosure-journal row first when the route
 * `discloses` personal data (503 and no data when it cannot), signs a list's `next_cursor`, and sets the
 * headers (those gathered by the steps, the reply's, `X-Request-Id`, `Cache-Control`, `Idempotent-Replayed`).
 * Without a promise when no journal row is due.
 * @throws ApiError 503 `service_unavailable` when the disclosure row cannot be written.
 */
export function answer(
  route: AnyRoute,
  ctx: RouteContext<unknown, unknown, unknown>,
  reply: Reply,
  headers: Record<string, string>,
): Response | Promise<Response> {
  if (route.discloses && reply.status < 300) {
    const c = ctx.caller;
    return recordDisclosure(ctx.db, {
      tenantId: c.tenantId,
      livemode: livemodeOf(ctx.actor),
      integrationId: c.integrationId,
      apiKeyId: c.key.id,
      route: `${route.method} ${route.path}`,
      resourceType: route.discloses,
      resourceIds: [...idsOf(reply.body)],
      requestId: ctx.requestId,
    }).then(() => response(route, ctx, reply, headers));
  }
  return response(route, ctx, reply, headers);
}

/** The HTTP answer of `reply`: signed `next_cursor`, headers, JSON body. */
function response(
  route: AnyRoute,
  ctx: RouteContext<unknown, unknown, unknown>,
  reply: Reply,
  headers: Record<string, string>,
): Response {
  let body = reply.body;
  let text: string | undefined;
  if (body instanceof JsonText) text = body.text;
  else if (route.list && reply.next !== undefined) {
    const nextCursor = reply.next ? encodeCursor(cursorBinding(route, ctx), [...reply.next]) : null;
    if (body instanceof TextPage) text = body.json(nextCursor);
    else body = { ...(body as object), next_cursor: nextCursor };
  }
  const h: Record<string, string> = { ...headers, ...reply.headers, "x-request-id": ctx.requestId };
  if (route.cacheControl) h["cache-control"] = route.cacheControl;
  // Stripe's header (issue 75 item 6): only an answer rebuilt from an idempotency record carries it.
  if (reply.replayed) h["idempotent-replayed"] = "true";
  if (reply.status === 204 || body === undefined) return new Response(null, { status: reply.status, headers: h });
  h["content-type"] = "application/json";
  return new Response(text ?? JSON.stringify(body), { status: reply.status, headers: h });
}
