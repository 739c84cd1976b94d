import type { Client } from "openapi-fetch";
import type { paths as TestModePaths } from "../generated/preview-test-mode.js";
import type { TestEvent, TestEventType } from "../types.js";
import { keyOf, unwrap, type Context, type WriteOptions } from "./context.js";

/**
 * Sample events of the sandbox (preview `test-mode`: only a test key of a tenant with the preview reaches
 * it; a live key gets `not_found`). Scope `webhooks:manage`.
 */
export function testHelperEventsResource(ctx: Context) {
  // The same client, typed with the preview's document: its paths are the default document's and the
  // preview's routes (src/generated/preview-test-mode.ts, written by `npm run sdk:build`).
  const raw = ctx.raw as unknown as Client<TestModePaths>;
  return {
    /**
     * `POST /test-helpers/events`: emits a sample event of `type` (any type of the catalog) to the sandbox's
     * webhook subscriptions, `livemode: false`, its ids naming the sandbox's own rows. Resolves to the event
     * as its deliveries carry it (202: the deliveries are queued).
     * @throws ApiError `validation_failed` (a type outside the catalog), `not_found` (a live key, or a
     *   tenant without the preview), `scope_missing`
     */
    emit: (type: TestEventType, o?: WriteOptions): Promise<TestEvent> =>
      unwrap(
        raw.POST("/test-helpers/events", {
          params: { header: { "Idempotency-Key": keyOf(ctx, o) } },
          body: { type },
          signal: o?.signal,
        }),
      ),
  };
}
