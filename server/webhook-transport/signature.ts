import { createHmac, timingSafeEqual } from "node:crypto";

/** Request headers of a delivery (spec "Events: Delivery format"). */
export const DELIVERY_HEADERS = {
  eventId: "Service-Event-Id",
  eventType: "Service-Event-Type",
  signature: "Service-Signature",
} as const;

/** Recommended tolerance between the signature's `t` and the receiver's clock, seconds (spec "Events: Signature"). */
export const DEFAULT_TOLERANCE_SEC = 300;

/** Hex HMAC-SHA256 of `<t>.<body>` keyed with `secret` (the whole `whsec_...` string as UTF-8). */
function hmacHex(secret: string, t: number, body: string | Buffer): string {
  return createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
}

/**
 * The `Service-Signature` value of spec "Events: Signature": `t=<unix seconds>,v1=<hex>`, with one more
 * `,v1=<hex>` per extra secret (the previous secret while a rotation window is open).
 * @param body the exact request body that will be sent (serialized once per attempt)
 * @param secrets current secret first, then the previous one when its window is open; at least one
 * @param t unix time in whole seconds; recomputed for each attempt
 */
export function signatureHeader(body: string | Buffer, secrets: readonly string[], t: number): string {
  if (secrets.length === 0) throw new Error("at least one signing secret is needed");
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmacHex(s, t, body)}`)].join(",");
}

/** Options of {@link verifySignature}. */
export interface VerifyOptions {
  /** Largest accepted |now - t|, seconds; default 300. */
  toleranceSec?: number;
  /** The receiver's clock; default the current time. */
  now?: Date;
}

/**
 * The receiver's check of spec "Events: Signature": parses `t` and every `v1` of `header`, computes the
 * HMAC of `t.rawBody` with each of `secrets`, and compares with each `v1` in constant time (any match
 * suffices); refuses when `t` is more than `toleranceSec` away from `now`, or the header is malformed.
 * @param rawBody the request body bytes as received, before any JSON parsing
 * @param secrets the secrets the receiver accepts (usually one; two during its own rotation)
 * @returns true when the signature is valid and fresh
 */
export function verifySignature(
  header: string | null | undefined,
  rawBody: string | Buffer,
  secrets: readonly string[],
  opts: VerifyOptions = {},
): boolean {
  if (!header) return false;
  let t: number | null = null;
  const v1: Buffer[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return false;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") {
      if (t !== null || !/^\d{1,12}$/.test(v)) return false;
      t = Number(v);
    } else if (k === "v1" && /^[0-9a-f]{64}$/i.test(v)) {
      v1.push(Buffer.from(v, "hex"));
    }
    // Other schemes (a future `v2`) are ignored, so receivers keep working while both are sent.
  }
  if (t === null || v1.length === 0) return false;
  const nowSec = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSec - t) > (opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC)) return false;
  let ok = false;
  // Every pair is compared, match or not, so the time taken does not tell which secret matched.
  for (const secret of secrets) {
    const expected = Buffer.from(hmacHex(secret, t, rawBody), "hex");
    for (const got of v1) if (timingSafeEqual(expected, got)) ok = true;
  }
  return ok;
}
