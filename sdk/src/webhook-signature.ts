import type { WebhookEvent } from "./types.js";

/** The request header carrying the signature (spec "Events: Delivery format"). */
export const SIGNATURE_HEADER = "service-signature";

/** Tolerance between `t` and the receiver's clock recommended by the spec, seconds. */
export const DEFAULT_TOLERANCE_SEC = 300;

/** Why a delivery was refused by {@link verifyWebhook}. */
export type WebhookVerificationReason =
  /** no `Service-Signature` header */
  | "missing_signature"
  /** the header has no single numeric `t` or no well-formed `v1` */
  | "malformed_signature"
  /** `t` is further from now than the tolerance (a replay of an old delivery, or a wrong clock) */
  | "timestamp_outside_tolerance"
  /** no `v1` matches any of the secrets: a changed body, a wrong secret, or a forgery */
  | "signature_mismatch"
  /** signed correctly, but the body is not a JSON event envelope */
  | "invalid_payload";

/** A delivery that must be refused: answer it with a 4xx (spec "Events: Signature"). */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Request headers as a fetch `Headers`, or a plain object such as Node's `req.headers` (any key case). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Largest accepted |now - t|, seconds; default 300 (spec: 5 minutes recommended). */
  toleranceSec?: number;
  /** The receiver's clock (Date or ms since epoch); default now. */
  now?: Date | number;
}

const encoder = new TextEncoder();

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function headerValue(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    return Array.isArray(v) ? v.join(",") : v;
  }
  return null;
}

/** `t` and every `v1` of a `Service-Signature` value; null when malformed. Other schemes (a future `v2`) are skipped. */
function parseSignature(header: string): { t: number; v1: Uint8Array<ArrayBuffer>[] } | null {
  let t: number | null = null;
  const v1: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return null;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") {
      if (t !== null || !/^\d{1,12}$/.test(v)) return null;
      t = Number(v);
    } else if (k === "v1" && /^[0-9a-f]{64}$/i.test(v)) {
      v1.push(Uint8Array.from(v.match(/../g)!, (h) => parseInt(h, 16)));
    }
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}

/** The signed bytes: `<t>.` followed by the raw body. */
function signedBytes(t: number, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${t}.`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/**
 * Verifies a webhook delivery and returns its event (spec "Events: Signature"): takes the raw body
 * bytes, parses `t` and every `v1` of `Service-Signature`, refuses a `t` further than `toleranceSec` from
 * now, computes HMAC-SHA256 of `<t>.<raw body>` with each secret and compares it with each `v1` in
 * constant time (WebCrypto `verify`; every pair is checked, so the time taken does not tell which
 * matched); any match suffices. Only then is the body parsed as JSON.
 *
 * Pass one secret, or two while your own rotation window is open (the old and the new: during the
 * 24 hours after `rotateSecret` each delivery carries a `v1` for each). Then skip an event `id` you have
 * already processed (deliveries are at least once) and answer 2xx, also to event types you do not know.
 *
 * ```ts
 * const event = await verifyWebhook(await request.text(), request.headers, process.env.WEBHOOK_SECRET!);
 * ```
 * @param rawBody the body exactly as received (a string decoded as UTF-8, or the bytes); never re-serialized JSON
 * @param headers the request headers (`Service-Signature` is read)
 * @param secrets the subscription's `whsec_...` secret, or a list of them
 * @throws WebhookVerificationError with `reason`; TypeError when no secret is given
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeaderSource,
  secrets: string | readonly string[],
  opts: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const keys = (typeof secrets === "string" ? [secrets] : [...secrets]).filter(
    (s) => typeof s === "string" && s.length > 0,
  );
  if (keys.length === 0) throw new TypeError("verifyWebhook: at least one signing secret is needed");
  const header = headerValue(headers, SIGNATURE_HEADER);
  if (!header) throw new WebhookVerificationError("missing_signature", "no Service-Signature header");
  const sig = parseSignature(header);
  if (!sig)
    throw new WebhookVerificationError(
      "malformed_signature",
      "Service-Signature needs one t=<unix seconds> and at least one v1=<64 hex>",
    );

  const nowMs = opts.now === undefined ? Date.now() : typeof opts.now === "number" ? opts.now : opts.now.getTime();
  const tolerance = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (Math.abs(Math.floor(nowMs / 1000) - sig.t) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_outside_tolerance",
      `signature time ${sig.t} is more than ${tolerance} s from now`,
    );
  }

  const body = bytesOf(rawBody);
  const data = signedBytes(sig.t, body);
  const checks = await Promise.all(
    keys.map(async (secret) => {
      const key = await hmacKey(secret, "verify");
      return Promise.all(sig.v1.map((v) => globalThis.crypto.subtle.verify("HMAC", key, v, data)));
    }),
  );
  if (!checks.flat().some(Boolean))
    throw new WebhookVerificationError("signature_mismatch", "no v1 signature matches the given secret(s)");

  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === "string" ? rawBody : new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError("invalid_payload", "the signed body is not JSON");
  }
  const e = event as Partial<Record<"id" | "type" | "data", unknown>> | null;
  if (
    typeof e !== "object" ||
    e === null ||
    typeof e.id !== "string" ||
    typeof e.type !== "string" ||
    typeof e.data !== "object" ||
    e.data === null
  ) {
    throw new WebhookVerificationError(
      "invalid_payload",
      "the signed body is not an event envelope {id, type, data, ...}",
    );
  }
  return event as WebhookEvent;
}

/**
 * The `Service-Signature` value the platform would send for `rawBody`: `t=<unix seconds>,v1=<hex>` with one
 * `v1` per secret. For receivers' own tests; production signatures come from the platform.
 * @param timestamp unix seconds; default now
 */
export async function signWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  secrets: string | readonly string[],
  timestamp: number = Math.floor(Date.now() / 1000),
): Promise<string> {
  const list = typeof secrets === "string" ? [secrets] : [...secrets];
  if (list.length === 0) throw new TypeError("signWebhook: at least one secret is needed");
  const data = signedBytes(timestamp, bytesOf(rawBody));
  const sigs = await Promise.all(
    list.map(async (s) => {
      const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", await hmacKey(s, "sign"), data));
      return `v1=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    }),
  );
  return [`t=${timestamp}`, ...sigs].join(",");
}
