import { getDb } from "@/db/client";
import { env } from "@/server/env";
import { ApiError, ERROR_CATALOG } from "@/server/errors";
import { log } from "@/server/log";
import { handlePaymentNotification } from "@/server/services/payments/payment-settle";

/** Largest notification body read, bytes; providers send a few kilobytes. */
export const MAX_NOTIFICATION_BYTES = 64 * 1024;

/** A problem+json answer (RFC 9457) of the catalog's code; the detail never holds secrets. */
export function problem(err: ApiError): Response {
  return Response.json(
    {
      type: `${env().cellOrigins[env().cell]}/developers/errors#${err.code}`,
      title: ERROR_CATALOG[err.code].title,
      status: err.status,
      code: err.code,
      detail: err.message,
    },
    { status: err.status, headers: { "content-type": "application/problem+json", "cache-control": "no-store" } },
  );
}

/** The raw body as text, at most {@link MAX_NOTIFICATION_BYTES}; signatures are checked on these bytes. */
async function rawBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = () =>
    new ApiError("payload_too_large", `A notification is at most ${MAX_NOTIFICATION_BYTES} bytes.`);
  if (declared > MAX_NOTIFICATION_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_NOTIFICATION_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `POST /api/payments/{provider}`: a payment provider's notification (docs/payments.md). 200
 * `{outcome}` once handled (also for a duplicate, a payment not ours or an event that settles
 * nothing, so the provider stops resending); 401 `signature_invalid` for a forged one, 400 for an
 * unreadable one, 404 when that provider is not configured, 503 when the provider could not be read
 * back (the provider resends later). Nothing is credited unless the payment is verified.
 */
export async function paymentNotificationDoor(request: Request, provider: string): Promise<Response> {
  try {
    const body = await rawBody(request);
    const outcome = await handlePaymentNotification(await getDb(), provider, body, request.headers);
    return Response.json({ outcome }, { headers: { "cache-control": "no-store" } });
  } catch (err) {
    if (err instanceof ApiError) {
      log().warn({ provider, code: err.code }, "payment notification refused");
      return problem(err);
    }
    log().error({ provider, err }, "payment notification failed");
    return problem(new ApiError("internal_error", "The notification could not be handled; send it again later."));
  }
}
