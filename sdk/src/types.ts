import type { components, operations, webhooks } from "./generated/openapi.js";

// Named types of the public API v1, all derived from the OpenAPI document the app generates
// (src/generated/openapi.ts, rewritten by `npm run sdk:build`). Nothing here is written by hand, so a
// change of the document that the SDK does not follow fails the SDK's build.

type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never;

/** The JSON body of operation `K`'s answer with HTTP status `S` (200 unless given). */
export type ResponseOf<
  K extends keyof operations,
  S extends keyof operations[K]["responses"] = 200 extends keyof operations[K]["responses"] ? 200 : never,
> = JsonOf<operations[K]["responses"][S]>;

/** The query parameters of operation `K` (all optional). */
export type QueryOf<K extends keyof operations> = operations[K]["parameters"] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;

/** The JSON request body of operation `K`. */
export type BodyOf<K extends keyof operations> = operations[K] extends {
  requestBody: { content: { "application/json": infer B } };
}
  ? B
  : never;

/** One item of a list answer of operation `K`. */
export type ItemOf<K extends keyof operations> = ResponseOf<K> extends { data: (infer T)[] } ? T : never;

/** RFC 9457 problem body of every refusal (spec "Errors: Problem body"). */
export type Problem = components["schemas"]["Problem"];
/** A catalog error code (spec "Errors: Catalog"); branch on it, never on `detail`. */
export type ProblemCode = Problem["code"];
/** One item of `errors[]` of `validation_failed`: `field` is a JSON Pointer (`/limit`, `/buttons/0/url`). */
export type FieldError = components["schemas"]["FieldError"];

export type Me = ResponseOf<"getMe">;
export type Wallet = ResponseOf<"getWallet">;
/** Body of `POST /test-helpers/wallet` (preview `test-mode`): exactly one of `balance` or `state`. */
export type TestWalletChange = BodyOf<"setTestWallet">;
/** (preview `test-mode`) A sample event as `POST /test-helpers/events` answers it: the envelope its deliveries carry. */
export type TestEvent = ResponseOf<"emitTestEvent", 202>;
/** (preview `test-mode`) The event types `POST /test-helpers/events` can emit: every type of the catalog. */
export type TestEventType = BodyOf<"emitTestEvent">["type"];
export type Conversation = components["schemas"]["Conversation"];
export type Message = components["schemas"]["Message"];
export type SendCards = components["schemas"]["SendCards"];
export type SentCards = components["schemas"]["SentCards"];
export type Card = ResponseOf<"getCard">;
export type CardCreate = BodyOf<"createCard">;
export type CardUpdate = BodyOf<"updateCard">;
export type Lead = components["schemas"]["Lead"];
/** Preview `leads-writes`: the body of `POST /leads`. */
export type LeadCreate = BodyOf<"createLead">;
/** Preview `leads-writes`: the body of `PATCH /leads/{id}` (only the fields sent change). */
export type LeadUpdate = BodyOf<"updateLead">;
/** Preview `leads-writes`: the answer of `POST /leads/{id}/score`. */
export type LeadScoreResult = ResponseOf<"scoreLead">;
/** Preview `leads-writes`: the CRM status map (external status → canonical status). */
export type CrmStatusMap = ResponseOf<"getCrmStatusMap">;
/** Preview `leads-writes`: one row of the integration's disclosure journal. */
export type Disclosure = ItemOf<"listDisclosures">;
export type DisclosureListQuery = QueryOf<"listDisclosures">;
export type ArticleSummary = ItemOf<"listArticles">;
export type Article = ResponseOf<"getArticle">;
/** Preview `articles-writes`: the Article as its routes answer it (status may be `handed_off`, publication target `none`). */
export type ArticleWritten = components["schemas"]["ArticleWritten"];
/** Preview `articles-writes`: the body of `PATCH /articles/{id}` (only the fields sent change). */
export type ArticleUpdate = BodyOf<"updateArticle">;
/** Preview `articles-writes`: the body of `POST /articles/{id}/publish`. */
export type ArticlePublish = BodyOf<"publishArticle">;
/** Preview `articles-writes`: a site of `GET /sites`. */
export type Site = components["schemas"]["Site"];
/** Preview `article-generation`: the tenant's editorial profile (`GET`/`PUT /articles/editorial-profile`). */
export type EditorialProfile = ResponseOf<"getEditorialProfile">;
/** Preview `article-generation`: the body of `PUT /articles/editorial-profile` (the whole profile). */
export type EditorialProfileInput = BodyOf<"putEditorialProfile">;
/** Preview `article-generation`: the body of `POST /articles/generation-jobs` (`topic_id` or `keyword`). */
export type GenerationJobCreate = BodyOf<"createGenerationJob">;
/** Preview `article-generation`: a generation job (`GET /articles/generation-jobs/{id}`). */
export type GenerationJob = ResponseOf<"getGenerationJob">;
export type StrategistReportSummary = ItemOf<"listStrategistReports">;
export type StrategistReport = ResponseOf<"getStrategistReport">;
export type StrategistTopic = ResponseOf<"getStrategistTopic">;
export type StrategistAction = ResponseOf<"getStrategistAction">;
/** Preview `strategist`: a chat session with its turns (`GET /strategist/chat/sessions/{id}`). */
export type StrategistSession = ResponseOf<"getStrategistSession">;
/** Preview `strategist`: the body of `POST /strategist/chat/sessions/{id}/turns`. */
export type StrategistTurnCreate = BodyOf<"createStrategistTurn">;
/** Preview `strategist`: a turn and its operation, as the turn route answers them. */
export type StrategistTurnResult = components["schemas"]["StrategistTurnResult"];
/** Preview `strategist`: one turn of a session. */
export type StrategistTurn = components["schemas"]["StrategistTurn"];
/** Preview `event-intake`: one event of `POST /intake/events`. */
export type IntakeEvent = components["schemas"]["IntakeEvent"];
/** Preview `event-intake`: the verdicts on a batch, one per event in request order. */
export type IntakeResponse = ResponseOf<"ingestEvents">;
/** Preview `event-intake`: the verdict on one event (`accepted`, `duplicate` or `rejected` with `errors`). */
export type IntakeResult = IntakeResponse["results"][number];
export type DashboardOverview = ResponseOf<"getDashboardOverview">;
/** Preview `event-intake`: one metric's series, comparison and summary (spec "Analytics shapes" TimeseriesItem). */
export type TimeseriesItem = components["schemas"]["TimeseriesItem"];
/** Preview `event-intake`: the metrics `GET /analytics/timeseries` knows. */
export type TimeseriesMetric = TimeseriesItem["metric"];
/** Preview `event-intake`: the query of `GET /analytics/timeseries` (`metric` comma-separated). */
export type TimeseriesQuery = QueryOf<"getAnalyticsTimeseries">;
/** Preview `event-intake`: `from` and `to` (YYYY-MM-DD) of an analytics read. */
export type AnalyticsPeriodQuery = QueryOf<"getAnalyticsFunnel">;
/** Preview `event-intake`: one traffic source's row. */
export type TrafficSourceRow = components["schemas"]["TrafficSourceRow"];
/** Preview `event-intake`: the answer of `GET /analytics/traffic-sources` (`{data, data_as_of}`). */
export type TrafficSources = ResponseOf<"getAnalyticsTrafficSources">;
/** Preview `event-intake`: the answer of `GET /analytics/funnel` (`{data, data_as_of}`). */
export type AnalyticsFunnel = ResponseOf<"getAnalyticsFunnel">;
/** Preview `event-intake`: one step of the funnel. */
export type FunnelStep = components["schemas"]["FunnelStep"];
export type Webhook = ResponseOf<"getWebhook">;
/** A subscription with its signing secret: shown once on create and rotate; null on an idempotent replay. */
export type WebhookWithSecret = ResponseOf<"createWebhook", 201>;
export type WebhookCreate = BodyOf<"createWebhook">;
export type WebhookUpdate = BodyOf<"updateWebhook">;
export type WebhookDelivery = ItemOf<"listWebhookDeliveries">;
/** A delivery with its attempt log (`GET /webhooks/{id}/deliveries/{delivery_id}`), attempts oldest first. */
export type WebhookDeliveryWithAttempts = components["schemas"]["WebhookDeliveryWithAttempts"];
/** One HTTP attempt of a delivery: when, how long, and what the receiver answered. */
export type WebhookDeliveryAttempt = components["schemas"]["WebhookDeliveryAttempt"];
export type WebhookTestResult = ResponseOf<"testWebhook", 202>;
/** An event of the journal (`GET /events`): the thin envelope its webhook deliveries carry, never personal data. */
export type JournalEvent = ResponseOf<"getEvent">;
/** The envelope of an asynchronous operation (spec "Operation"). */
export type Operation = ResponseOf<"getOperation">["operation"];
/** `queued`, `running`, `succeeded`, `failed` or `canceled`. */
export type OperationStatus = Operation["status"];

export type ConversationListQuery = QueryOf<"listConversations">;
export type MessageListQuery = QueryOf<"listConversationMessages">;
export type CardListQuery = QueryOf<"listCards">;
export type LeadListQuery = QueryOf<"listLeads">;
export type ArticleListQuery = QueryOf<"listArticles">;
export type ArticleQuery = QueryOf<"getArticle">;
export type StrategistReportListQuery = QueryOf<"listStrategistReports">;
export type StrategistTopicListQuery = QueryOf<"listStrategistTopics">;
export type StrategistActionListQuery = QueryOf<"listStrategistActions">;
export type DashboardOverviewQuery = QueryOf<"getDashboardOverview">;
export type WebhookListQuery = QueryOf<"listWebhooks">;
export type WebhookDeliveryListQuery = QueryOf<"listWebhookDeliveries">;
/** Query of `GET /events`: `limit`, `cursor`, `type` (exact or `<family>.*`), `created_after`. */
export type EventListQuery = QueryOf<"listEvents">;

type EventBody<K extends keyof webhooks> = webhooks[K] extends {
  post: { requestBody: { content: { "application/json": infer B } } };
}
  ? B
  : never;

/**
 * A webhook event as delivered (spec "Events: Delivery format"): `{id, type, api_version, created_at,
 * livemode, data}`, one member per documented event type, discriminated by `type`. The list of types
 * grows inside v1: at run time `type` may be one this version does not know; answer it with 2xx.
 */
export type WebhookEvent = { [K in keyof webhooks]: EventBody<K> }[keyof webhooks];
/** The documented event types (`lead.created`, `webhook.test`, ...). */
export type WebhookEventType = WebhookEvent["type"];
