import type { Db } from "@/db/client";
import { getDb, openedDb } from "@/db/client";
import { ApiError, type ErrorCode } from "@/server/errors";
import { money } from "@/server/lib/money";
import { check, validationError } from "@/server/lib/validation";
import { authenticateNow } from "@/server/services/access/authenticate";
import { callerAfterSandboxSeeding } from "@/server/services/account/account";
import { assertPiiTransferAllowed } from "@/server/services/access/pii-transfer";
import type { ApiCaller } from "@/server/services/actor";
import { seedSandbox } from "@/server/services/sandbox/seed-sandbox";
import { prefetchedWallet, readWallet, topupUrl, type WalletSnapshot } from "@/server/services/wallet/wallet-state";
import { readJsonBody, refuseLargeBody } from "./body";
import { callerIp } from "@/server/lib/client-ip";
import { decodeCursor } from "./cursor";
import { idempotencyMode, type AnyRoute, type Reply, type RouteContext } from "./define-route";
import { executeRoute, IDEMPOTENCY_KEY_PATTERN, idempotencyProblems } from "./execute";
import { answer, cursorBinding } from "./answer";
import { applyRateLimit } from "./rate-limit";
import type { Router } from "./router";

/** Mount point of the public API. */
export const API_PREFIX = "/api/public/v1";

/**
 * What the steps of one request know so far. Each step reads what earlier steps set and adds its own;
 * the `!` fields are set by the step named beside them before any later step reads them.
 */
export interface RequestState {
  readonly request: Request;
  readonly url: URL;
  readonly requestId: string;
  readonly router: Router;
  /** Headers every answer carries, problem or not (deprecation, rate limits, wallet state). */
  readonly headers: Record<string, string>;
  /** Path below the mount point, e.g. `/cards/socks`. */
  path: string;
  route?: AnyRoute; // route
  pathParams?: Record<string, string>; // route
  db?: Db; // authenticate
  caller?: ApiCaller; // authenticate
  idempotencyKey?: string | null; // idempotencyKey
  rawBody?: unknown; // body
  ctx?: RouteContext<unknown, unknown, unknown>; // validate
  reply?: Reply; // execute
  response?: Response; // answer
}

/**
 * One step of the pipeline (DESIGN "Hot path"): `run` refuses with the catalog's problem+json by throwing
 * ApiError, or adds to the state; `problems` lists the codes it may answer for a route, which is what the
 * OpenAPI document declares per route (server/openapi/problem-codes.ts reads this list).
 */
export interface PipelineStep {
  name: string;
  problems(route: AnyRoute): readonly ErrorCode[];
  run(s: RequestState): Promise<void> | void;
}

const none = (): readonly ErrorCode[] => [];

/** The 404 of an unknown or Planned route (also a preview route for a caller without the feature). */
const noRoute = (s: RequestState) =>
  new ApiError("not_found", `No route ${s.request.method} ${s.path} exists in this API version.`);

/** 404 for an unknown or planned path, 405 with `Allow`; retirement headers of the route. */
const route: PipelineStep = {
  name: "route",
  problems: none,
  run(s) {
    const match = s.router.match(s.request.method, s.path);
    if (match.kind === "not_found") {
      // A trailing slash is not the route (the OpenAPI document has no such address, so no generated
      // client or validator would agree to it); say which address was meant instead of redirecting.
      const bare = s.path.length > 1 && s.path.endsWith("/") ? s.path.slice(0, -1) : null;
      if (bare !== null && s.router.match(s.request.method, bare).kind !== "not_found")
        throw new ApiError(
          "not_found",
          `No route ${s.request.method} ${s.path} exists: API paths have no trailing slash; use ${s.request.method} ${bare}.`,
        );
      throw noRoute(s);
    }
    if (match.kind === "method_not_allowed") {
      throw new ApiError(
        "method_not_allowed",
        `${s.request.method} is not supported on ${s.path}.`,
        {},
        { allow: match.allow.join(", ") },
      );
    }
    const r = match.route;
    if (r.deprecation) {
      s.headers["deprecation"] = `@${Math.floor(r.deprecation.deprecatedAt.getTime() / 1000)}`;
      s.headers["sunset"] = r.deprecation.sunsetAt.toUTCString();
      if (r.deprecation.link) s.headers["link"] = `<${r.deprecation.link}>; rel="deprecation"`;
    }
    s.route = r;
    s.pathParams = match.params;
  },
};

/**
 * The key (spec "Authentication" 1-5): 401 and 403 family. A preview route (`route.preview`) answers the
 * Planned 404 instead of any refusal here, and when the key's tenant lacks the feature: the tenant is only
 * known once the key is, so every caller but a flagged tenant's valid key sees exactly the Planned answer
 * (no rate-limit headers either; docs/interpretations.md "Preview routes").
 */
const authenticateStep: PipelineStep = {
  name: "authenticate",
  problems: (r) => [
    "invalid_api_key",
    "wrong_cell",
    "integration_inactive",
    "tenant_inactive",
    "ip_not_allowed",
    "feature_not_in_plan",
    ...(r.preview ? (["not_found"] as const) : []),
  ],
  run(s) {
    // The open database without a promise to wait on: this step runs on every request.
    const db = openedDb();
    if (!db) return getDb().then((opened) => authenticateIn(s, opened));
    return authenticateIn(s, db);
  },
};

/**
 * The authenticate step with the database open: without a promise when the key's row is in the key cache
 * (the hot path), else after the key query. A preview route turns every refusal into its Planned 404.
 */
function authenticateIn(s: RequestState, db: Db): Promise<void> | void {
  s.db = db;
  const feature = s.route!.preview;
  const authorization = s.request.headers.get("authorization");
  const ip = callerIp(s.request.headers);
  const admit = (caller: ApiCaller): Promise<void> | void => {
    if (feature && !caller.previews.includes(feature)) throw noRoute(s);
    s.caller = caller;
    // A test key's first request in its tenant's sandbox seeds the sandbox, once (seed-sandbox.ts); the
    // key's row carries the seeded flag, so every other request (and every live one) pays nothing here.
    // The caller is then made again with the sandbox wallet just written: the wallet gate, `/wallet` and `/me`
    // of this first request judge it, not the missing row the key query found before the seeding.
    if (!caller.actor.livemode && !caller.sandboxSeeded)
      return seedSandbox(db, caller.tenantId)
        .then(() => callerAfterSandboxSeeding(db, caller))
        .then((seeded) => {
          s.caller = seeded;
        });
  };
  const refuse = (err: unknown): never => {
    throw feature && err instanceof ApiError ? noRoute(s) : err;
  };
  let caller: ApiCaller | Promise<ApiCaller>;
  try {
    caller = authenticateNow(db, authorization, ip);
  } catch (err) {
    return refuse(err);
  }
  return caller instanceof Promise ? caller.then(admit, refuse) : admit(caller);
}

/** Sliding windows per key and tenant (spec "Limits"); `RateLimit-*` headers. */
const rateLimit: PipelineStep = {
  name: "rate limit",
  problems: () => ["rate_limited", "service_unavailable"],
  run: (s) => applyRateLimit(s.caller!, s.route!.rate, s.headers),
};

/**
 * 402 `wallet_suspended` while exchange is suspended (except `/me`, `/wallet` and the test helpers); paid
 * routes are closed with 503 `upstream_unavailable` while the wallet state is unknown (spec "Wallet and
 * exchange"). The wallet judged is that of the actor's mode: a sandbox key's is the sandbox wallet (issue 69).
 */
const walletGate: PipelineStep = {
  name: "wallet gate",
  problems: (r) => [
    ...(r.walletExempt ? [] : (["wallet_suspended"] as const)),
    ...(r.rate === "paid" ? (["upstream_unavailable", "insufficient_funds", "spend_limit_reached"] as const) : []),
  ],
  run(s) {
    const caller = s.caller!;
    // Every route reads the state (from the row fetched with the key: no query, and no promise to wait on)
    // so that the `Service-Wallet-State: unknown` header of the spec's free reads also reaches /me and /wallet.
    const known = prefetchedWallet(caller.walletRow);
    if (known) return gateOnWallet(s, known);
    return readWallet(s.db!, caller.actor, caller.walletRow).then((w) => gateOnWallet(s, w));
  },
};

/** The wallet gate's verdict on `wallet`: sets `Service-Wallet-State: unknown`, or refuses (402, 503). */
function gateOnWallet(s: RequestState, wallet: WalletSnapshot): void {
  if (wallet.state === "unknown") {
    s.headers["service-wallet-state"] = "unknown";
    if (s.route!.rate === "paid")
      throw new ApiError(
        "upstream_unavailable",
        "The wallet state cannot be read right now, so paid operations are closed; retry after a pause.",
        {},
        { "retry-after": "30" },
      );
  }
  if (!s.route!.walletExempt && wallet.exchange === "suspended") {
    throw new ApiError(
      "wallet_suspended",
      `Data exchange is suspended because the wallet is ${wallet.state}; top up to resume.`,
      {
        topup_url: topupUrl(s.caller!.tenantId),
        balance: wallet.balanceMinor === null ? null : money(wallet.balanceMinor),
      },
    );
  }
}

/** 403 `scope_missing` when the key's effective scopes lack the route's (any one of them, for a list). */
const scope: PipelineStep = {
  name: "scope",
  problems: (r) => (r.scope ? ["scope_missing"] : []),
  run(s) {
    const need = s.route!.scope;
    if (need === null) return;
    if (typeof need === "string") {
      if (!s.caller!.scopes.includes(need))
        throw new ApiError(
          "scope_missing",
          `This route needs the scope ${need}; the key's effective scopes are listed in GET /me.`,
        );
      return;
    }
    if (!need.some((n) => s.caller!.scopes.includes(n)))
      throw new ApiError(
        "scope_missing",
        `This route needs one of the scopes ${need.join(", ")}; the key's effective scopes are listed in GET /me.`,
      );
  },
};

/** The RU-cell personal-data rule, before any read (spec "Authentication" 7). */
const personalData: PipelineStep = {
  name: "personal-data rule",
  problems: (r) => (r.pii ? ["pii_transfer_not_allowed"] : []),
  run(s) {
    if (!s.route!.pii) return;
    const c = s.caller!;
    assertPiiTransferAllowed(c.actor.cell, {
      country: c.integration.piiCountry,
      legalBasis: c.integration.legalBasis,
      ipAllowlist: c.key.ipAllowlist,
    });
  },
};

/** `Idempotency-Key`: 400 when required and absent, or malformed where it is taken. */
const idempotencyKey: PipelineStep = {
  name: "idempotency key",
  problems: idempotencyProblems,
  run(s) {
    const r = s.route!;
    const mode = idempotencyMode(r);
    const key = s.request.headers.get("idempotency-key");
    if (mode === "required" && !key)
      throw new ApiError(
        "idempotency_key_required",
        `${r.method} ${r.path} needs an Idempotency-Key header (a new UUID per operation).`,
      );
    if (mode !== "none" && key !== null && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ApiError("bad_request", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
    }
    s.idempotencyKey = mode === "none" ? null : key;
  },
};

/** A JSON body where the route takes one: 400 (not JSON, wrong Content-Type); 413 over 256 KB on every route. */
const body: PipelineStep = {
  name: "body",
  problems: (r) => (r.body ? ["bad_request", "payload_too_large"] : ["payload_too_large"]),
  async run(s) {
    if (!s.route!.body) return refuseLargeBody(s.request);
    s.rawBody = await readJsonBody(s.request);
    if (s.rawBody === undefined) throw new ApiError("bad_request", "This route needs a JSON body.");
  },
};

/**
 * Path parameters (404 when they do not parse), query and body (422 with JSON Pointers, all problems at
 * once), and a list route's cursor (422 on `/cursor`).
 */
const validate: PipelineStep = {
  name: "validate",
  problems: (r) => ["validation_failed", ...(r.params || r.path.includes("{") ? (["not_found"] as const) : [])],
  run(s) {
    const r = s.route!;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(s.pathParams!)) {
      try {
        params[k] = decodeURIComponent(v);
      } catch {
        throw new ApiError("not_found", `No resource at ${s.path}.`);
      }
    }
    const ctx = {
      db: s.db!,
      caller: s.caller!,
      actor: s.caller!.actor,
      requestId: s.requestId,
      request: s.request,
      url: s.url,
    } as RouteContext<unknown, unknown, unknown>;
    if (r.params) {
      const p = check(r.params, params);
      if (!p.ok) throw new ApiError("not_found", `No resource at ${s.path}.`);
      ctx.params = p.value;
    } else ctx.params = params;
    const errors = [];
    // A tenant with the route's preview variant asks with the variant's query (e.g. `status=handed_off`).
    const variant = r.previewVariant;
    const query = variant?.query && s.caller!.previews.includes(variant.preview) ? variant.query : r.query;
    if (query) {
      const q = check(query, queryObject(s.url.searchParams));
      if (q.ok) ctx.query = q.value;
      else errors.push(...q.errors);
    } else if ([...s.url.searchParams.keys()].length) {
      const names = [...new Set(s.url.searchParams.keys())];
      errors.push(
        ...names.map((n) => ({
          field: `/${n}`,
          code: "unknown_parameter",
          message: `Unknown query parameter "${n}".`,
        })),
      );
    }
    if (r.body) {
      const b = check(r.body, s.rawBody, { itemsJudgedUnder: r.itemsJudgedByHandler });
      if (b.ok) ctx.body = b.value;
      else errors.push(...b.errors);
    }
    if (errors.length) throw validationError(errors);
    const token = (ctx.query as { cursor?: string } | undefined)?.cursor;
    if (r.list && token) {
      const position = check(r.list.position, decodeCursor(token, cursorBinding(r, ctx)));
      // Only the app secret can sign a cursor, so a bad shape here is our own bug; still a 422, never a 500.
      if (!position.ok)
        throw validationError([
          {
            field: "/cursor",
            code: "invalid_cursor",
            message: "The cursor is invalid, expired or belongs to another walk; restart without a cursor.",
          },
        ]);
      ctx.after = position.value as readonly unknown[];
    }
    s.ctx = ctx;
  },
};

/** The handler, in a transaction for writes, under the idempotency record when a key was sent. */
const execute: PipelineStep = {
  name: "execute",
  problems: (r) => idempotencyProblems(r).filter((c) => c !== "idempotency_key_required" && c !== "bad_request"),
  run(s) {
    const reply = executeRoute(s.route!, s.ctx!, s.idempotencyKey ?? null, s.rawBody);
    if (!(reply instanceof Promise)) s.reply = reply;
    else
      return reply.then((r) => {
        s.reply = r;
      });
  },
};

/** Disclosure journal, signed `next_cursor`, answer headers and body. */
const answerStep: PipelineStep = {
  name: "answer",
  problems: (r) => (r.discloses ? ["service_unavailable"] : []),
  run(s) {
    const response = answer(s.route!, s.ctx!, s.reply!, s.headers);
    if (!(response instanceof Promise)) s.response = response;
    else
      return response.then((r) => {
        s.response = r;
      });
  },
};

/**
 * The steps of a public request in order (DESIGN "Hot path"). The pipeline runs them; the OpenAPI
 * document derives each route's problem codes from them, so the two cannot drift apart.
 */
export const PIPELINE_STEPS: readonly PipelineStep[] = [
  route,
  authenticateStep,
  rateLimit,
  walletGate,
  scope,
  personalData,
  idempotencyKey,
  body,
  validate,
  execute,
  answerStep,
];

/** Query string → object for zod: one value as a string, a repeated name as an array (which fails validation). */
function queryObject(sp: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k of new Set(sp.keys())) {
    const all = sp.getAll(k);
    out[k] = all.length === 1 ? all[0] : all;
  }
  return out;
}
