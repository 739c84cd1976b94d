import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { Agent, request } from "undici";
import { ApiError } from "@/server/errors";
import { forbiddenAddressReason } from "./address-policy";
import { checkWebhookUrl, resolveHost } from "./url-check";

/** Whole time an attempt may take, connection, headers and body included, ms (spec "Delivery behaviour": 10 s). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** At most this much of a receiver's answer is read, bytes; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Bytes of a receiver's answer kept for the attempt log (issue 75 item 2: the first 2 KB as text). */
export const KEPT_BODY_BYTES = 2048;

/**
 * Answer headers kept for the attempt log (issue 75 item 2), lower-case. Nothing else is kept: a receiver's
 * other headers (cookies, tokens of its own framework) are none of the log's business.
 */
export const KEPT_RESPONSE_HEADERS = ["content-type", "retry-after", "date", "server"] as const;

/**
 * Outcome of one POST (spec "Webhook delivery"): `ok` only for a 2xx within the timeout. `error` is a
 * journal code of the spec ("Events: Delivery behaviour"): `http_<status>`, `redirect_not_followed`,
 * `timeout`, `network_error` (DNS failure, refused or reset connection, TLS failure), `https_only`,
 * `private_address`; or, only when the URL rules changed after the subscription was stored, the URL
 * check's own code (`invalid_url`, `ip_not_allowed`, `port_not_allowed`, `userinfo_not_allowed`).
 * `durationMs` is wall time of the attempt, ms. When the receiver answered, `responseHeaders` holds the
 * {@link KEPT_RESPONSE_HEADERS} it sent (lower-case names; repeated ones joined with ", ") and
 * `responseBody` the first {@link KEPT_BODY_BYTES} bytes of its body as UTF-8 text (a character cut at the
 * end is dropped, NUL becomes U+FFFD since PostgreSQL text cannot hold it); both are absent or null when
 * no answer came (refused address, connection error, timeout). `retryAfter`: the receiver's `Retry-After`
 * header as sent, on a non-2xx answer that carried one (issue 75 item 4; read by retry-after.ts).
 */
export interface DeliveryResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  retryAfter?: string;
  responseHeaders?: Record<string, string> | null;
  responseBody?: string | null;
}

/** Sends one signed body to one subscription address; never throws for what the receiver does. */
export interface DeliveryClient {
  post(url: string, body: string, headers: Record<string, string>): Promise<DeliveryResult>;
  close(): Promise<void>;
}

/** Options of {@link createDeliveryClient}. */
export interface DeliveryClientOptions {
  /** Whole-attempt timeout, ms; default {@link DELIVERY_TIMEOUT_MS}. Tests shorten it. */
  timeoutMs?: number;
  /**
   * Test only: PEM of an extra CA to trust (the local test receiver's self-signed certificate).
   * Production clients never set it, so only publicly trusted certificates are accepted.
   */
  testCa?: string;
}

/** Raised from the connection's DNS lookup when an address may not be connected to. */
class RefusedAddressError extends Error {
  readonly code = "E_WEBHOOK_REFUSED";
  constructor(readonly reason: string) {
    super(`webhook address refused: ${reason}`);
  }
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `connect.lookup` of the Agent: resolves through the same resolver as the URL check
 * (server/webhook-transport/url-check.ts) and refuses the connection when ANY address is forbidden, so the
 * address connected to is one that was checked at this very moment (no DNS rebinding between the
 * check and the connection; DESIGN "Decisions: undici Agent").
 */
function guardedLookup(hostname: string, options: { all?: boolean } | number, callback: LookupCallback): void {
  const all = typeof options === "object" && options !== null && options.all === true;
  void resolveHost(hostname).then(
    (found) => {
      if (!found) return callback(new RefusedAddressError("network_error"), all ? [] : "");
      if (found.some((a) => forbiddenAddressReason(a.address) !== null))
        return callback(new RefusedAddressError("private_address"), all ? [] : "");
      if (all)
        return callback(
          null,
          found.map((a) => ({ address: a.address, family: a.family })),
        );
      callback(null, found[0]!.address, found[0]!.family);
    },
    () => callback(new RefusedAddressError("network_error"), all ? [] : ""),
  );
}

/** Walks an error and its causes for the first one that explains the failure as a journal code. */
function classify(err: unknown, timedOut: boolean): string {
  if (timedOut) return "timeout";
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RefusedAddressError) return e.reason;
    const code = String((e as { code?: unknown }).code ?? "");
    if (code === "E_WEBHOOK_REFUSED") return String((e as { reason?: unknown }).reason);
    if (code.startsWith("UND_ERR_") && code.includes("TIMEOUT")) return "timeout";
    if (code === "ETIMEDOUT") return "timeout";
  }
  // Resets, refusals, DNS and TLS failures: the spec's single code for a transport failure.
  return "network_error";
}

/** The allow-listed headers of an answer ({@link KEPT_RESPONSE_HEADERS}); undici gives lower-case names. */
export function keptHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_RESPONSE_HEADERS) {
    const v = headers[name];
    if (v !== undefined) kept[name] = Array.isArray(v) ? v.join(", ") : v;
  }
  return kept;
}

/**
 * The first {@link KEPT_BODY_BYTES} of `chunks` as text: UTF-8, a multi-byte character cut at the end left
 * out (the streaming decoder holds it back), NUL replaced (PostgreSQL text cannot store it).
 */
export function keptBodyText(chunks: readonly Buffer[]): string {
  const bytes = Buffer.concat(chunks).subarray(0, KEPT_BODY_BYTES);
  return new TextDecoder("utf-8").decode(bytes, { stream: true }).replaceAll("\u0000", "\uFFFD");
}

/**
 * A delivery client over an undici Agent with the guarded lookup: https only, no redirects (a 3xx is
 * the failure `redirect_not_followed`), one deadline for connection, headers and body, and at most
 * {@link MAX_RESPONSE_BYTES} of the answer read (the connection is dropped after that). Of what is read only
 * the first {@link KEPT_BODY_BYTES} are kept, for the attempt log; the rest is read only so that a small
 * answer leaves the connection reusable. The URL is checked again with checkWebhookUrl before every attempt.
 */
export function createDeliveryClient(opts: DeliveryClientOptions = {}): DeliveryClient {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const agent = new Agent({
    connect: { lookup: guardedLookup as never, timeout: timeoutMs, ...(opts.testCa ? { ca: opts.testCa } : {}) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  return {
    async post(url, body, headers) {
      const started = performance.now();
      const done = (
        ok: boolean,
        statusCode: number | null,
        error: string | null,
        answer?: { headers: Record<string, string>; body: string },
      ): DeliveryResult => ({
        ok,
        statusCode,
        durationMs: Math.max(0, Math.round(performance.now() - started)),
        error,
        responseHeaders: answer?.headers ?? null,
        responseBody: answer?.body ?? null,
      });
      try {
        await checkWebhookUrl(url);
      } catch (err) {
        const code = err instanceof ApiError ? (err.extras.errors?.[0]?.code ?? "invalid_url") : "invalid_url";
        return done(false, null, code === "unresolvable_host" ? "network_error" : code);
      }
      // An IP literal (only loopback under the test setting passes checkWebhookUrl) skips DNS, so the
      // lookup guard would not see it: judge it here.
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) && forbiddenAddressReason(host)) return done(false, null, "private_address");

      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      try {
        const res = await request(url, {
          method: "POST",
          body,
          headers,
          dispatcher: agent,
          signal: controller.signal,
          maxRedirections: 0,
        });
        let read = 0;
        const kept: Buffer[] = [];
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          if (read < KEPT_BODY_BYTES) kept.push(buf.subarray(0, KEPT_BODY_BYTES - read));
          read += buf.length;
          // Breaking out destroys the stream: the rest of a huge answer is never downloaded.
          if (read >= MAX_RESPONSE_BYTES) break;
        }
        const status = res.statusCode;
        const answer = { headers: keptHeaders(res.headers), body: keptBodyText(kept) };
        if (status >= 200 && status < 300) return done(true, status, null, answer);
        if (status >= 300 && status < 400) return done(false, status, "redirect_not_followed", answer);
        const retryAfter = res.headers["retry-after"];
        return {
          ...done(false, status, `http_${status}`, answer),
          ...(typeof retryAfter === "string" ? { retryAfter } : {}),
        };
      } catch (err) {
        return done(false, null, classify(err, timedOut));
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
}

const KEY = Symbol.for("platform.deliveryClient");
type Holder = { [KEY]?: DeliveryClient };

/** The process-wide delivery client (one Agent, so connections to a receiver are reused). */
export function deliveryClient(): DeliveryClient {
  const g = globalThis as Holder;
  return (g[KEY] ??= createDeliveryClient());
}
