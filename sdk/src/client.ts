import createFetchClient from "openapi-fetch";
import type { paths } from "./generated/openapi.js";
import { accountResources } from "./resources/account.js";
import { analyticsResource } from "./resources/analytics.js";
import { articlesResource } from "./resources/articles.js";
import { articleGenerationResource } from "./resources/article-generation.js";
import { articlesWritesResource } from "./resources/articles-writes.js";
import { cardsResource } from "./resources/cards.js";
import type { RawClient } from "./resources/context.js";
import { conversationsResource } from "./resources/conversations.js";
import { dashboardsResource } from "./resources/dashboards.js";
import { eventsResource } from "./resources/events.js";
import { intakeResource } from "./resources/intake.js";
import { leadsResource } from "./resources/leads.js";
import { leadsWritesResource } from "./resources/leads-writes.js";
import { operationsResource, type WaitOptions } from "./resources/operations.js";
import { strategistResource } from "./resources/strategist.js";
import { strategistChatResource } from "./resources/strategist-chat.js";
import { testHelpersResource } from "./resources/test-helpers.js";
import { webhooksResource } from "./resources/webhooks.js";
import { createTransport, timerSleep, type RetryOptions } from "./transport.js";
import type { Operation } from "./types.js";

/** Version of this package, sent in `User-Agent`. */
export const SDK_VERSION = "0.1.0";

/** Options of {@link createClient}. */
export interface ClientOptions extends RetryOptions {
  /**
   * The cell's base address, `{cell_origin}/api/public/v1` (a key works only in its own cell; `GET /me`
   * shows `base_url`, a wrong cell answers `wrong_cell` with `correct_base_url`).
   */
  baseUrl: string;
  /** The API key (`Authorization: Bearer <key>`). Server side only: never ship it to a browser or app. */
  apiKey: string;
  /** Time one attempt may take, ms; default 60,000. */
  timeoutMs?: number;
  /** The fetch to send with; default `globalThis.fetch` (tests and proxies pass their own). */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Makes Idempotency-Keys; default `crypto.randomUUID()`. */
  newIdempotencyKey?: () => string;
  /** Waits between retries and operation reads; tests replace it. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * A client of the public API v1 (spec "Endpoints"): one group of methods per route family, typed from the
 * OpenAPI document. Behaviour shared by every call:
 * - answers outside 2xx are thrown as `ApiError` (`code`, `status`, `requestId`, `errors`);
 * - list methods return a `Paginated` that walks every page (`for await (const card of client.cards.list({ limit: 100 }))`);
 * - every POST and PATCH carries an Idempotency-Key (a new UUID unless `idempotencyKey` is given), the
 *   same on each retry, so a retry never does the work twice;
 * - GET, and POST/PATCH (with their key), are retried on 429, 5xx, 409 `operation_in_progress` and lost
 *   connections, waiting `Retry-After` when the answer names it and exponential backoff otherwise;
 *   DELETE is not retried.
 *
 * ```ts
 * const client = createClient({ baseUrl: "https://api.example.ru/api/public/v1", apiKey: process.env.API_KEY! });
 * const me = await client.me.get();
 * for await (const card of client.cards.list({ limit: 100 })) console.log(card.code);
 * ```
 */
export function createClient(options: ClientOptions) {
  if (!options.baseUrl)
    throw new TypeError("createClient: baseUrl is required, e.g. https://api.example.ru/api/public/v1");
  if (!options.apiKey) throw new TypeError("createClient: apiKey is required");
  const newIdempotencyKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const sleep = options.sleep ?? timerSleep;
  const transport = createTransport({ ...options, newIdempotencyKey, sleep });
  const raw: RawClient = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    fetch: transport,
    headers: {
      "User-Agent": `platform-sdk-js/${SDK_VERSION}`,
      ...options.headers,
      Authorization: `Bearer ${options.apiKey}`,
    },
  });
  const ctx = { raw, newIdempotencyKey, sleep };
  const operations = operationsResource(ctx);
  const { me, wallet } = accountResources(ctx);
  return {
    me,
    wallet,
    conversations: conversationsResource(ctx),
    cards: cardsResource(ctx),
    leads: leadsResource(ctx),
    /** Preview `leads-writes`: lead writes under If-Match, paid scoring, the CRM status map, the disclosure journal. */
    leadsWrites: leadsWritesResource(ctx),
    articles: articlesResource(ctx),
    /** Preview `articles-writes`: article edits (If-Match when sent), approval, publication, the tenant's sites. */
    articlesWrites: articlesWritesResource(ctx),
    /** Preview `article-generation`: the editorial profile and paid article generation jobs. */
    articleGeneration: articleGenerationResource(ctx),
    strategist: strategistResource(ctx),
    /** Preview `strategist`: decisions on topics and actions, chat sessions with paid turns. */
    strategistChat: strategistChatResource(ctx),
    dashboards: dashboardsResource(ctx),
    /** Preview `event-intake`: send page views, form submissions, sign-ups, purchases and conversions. */
    intake: intakeResource(ctx),
    /** Preview `event-intake`: time series, traffic sources and the funnel, from the events you send. */
    analytics: analyticsResource(ctx),
    webhooks: webhooksResource(ctx),
    /** The event journal: the last 30 days of events as their deliveries carry them, to catch up after an outage. */
    events: eventsResource(ctx),
    /** Preview `test-mode`, test keys only: put the sandbox in a state worth testing. */
    testHelpers: testHelpersResource(ctx),
    operations: { get: operations.get },
    /**
     * Reads `GET /operations/{id}` until the operation is finished and returns it (a `failed` one too).
     * @throws OperationTimeoutError after `timeoutMs` (default 60 s), carrying the last state read
     */
    waitForOperation: (id: string, o?: WaitOptions): Promise<Operation> => operations.wait(id, o),
    /** The typed openapi-fetch client (same transport: key, retries, Idempotency-Keys) for anything else. */
    raw,
  };
}

/** The client {@link createClient} returns. */
export type PlatformClient = ReturnType<typeof createClient>;
