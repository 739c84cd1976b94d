import type { webhookDeliveries, webhookDeliveryAttempts } from "@/db/schema";

type DeliveryRow = typeof webhookDeliveries.$inferInsert & { id: string; createdAt: Date };
type AttemptRow = typeof webhookDeliveryAttempts.$inferInsert;

const MIN = 60_000;
const HOUR = 60 * MIN;

/** The pauses of the retry schedule (spec "Delivery behaviour": 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, 24 h). */
const PAUSES_MS = [MIN, 5 * MIN, 15 * MIN, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];

/** When each attempt of a sample delivery was made, ms after its creation: the first a second later, then the pauses added up. */
const ATTEMPT_OFFSETS_MS = PAUSES_MS.reduce((acc, pause) => [...acc, acc[acc.length - 1]! + pause], [1_000]);

/** What the sample receiver answers with each status: the allow-listed headers and a short body. */
function answer(status: number, at: Date): Pick<AttemptRow, "responseHeaders" | "responseBody"> {
  const date = at.toUTCString();
  if (status === 200)
    return {
      responseHeaders: { "content-type": "application/json", date, server: "nginx" },
      responseBody: '{"received":true}',
    };
  if (status === 503)
    return {
      responseHeaders: { "content-type": "text/plain", date, "retry-after": "120", server: "nginx" },
      responseBody: "Service temporarily unavailable",
    };
  return {
    responseHeaders: { "content-type": "text/html", date, server: "nginx" },
    responseBody: `<html><head><title>${status}</title></head><body><h1>${status} Internal Server Error</h1></body></html>`,
  };
}

/**
 * The attempt log of one sample delivery (issue 75 item 2), consistent with its journal row: `attempt`
 * rows, the last one answering the row's status (200 for a delivered one), the earlier ones the row's
 * failure (503 for one delivered at the second attempt). The last one's duration is the row's.
 */
export function sampleAttempts(d: DeliveryRow): AttemptRow[] {
  const count = d.attempt ?? 0;
  const rows: AttemptRow[] = [];
  for (let i = 0; i < count; i++) {
    const last = i === count - 1;
    const status = last ? (d.statusCode ?? 500) : d.state === "delivered" ? 503 : (d.statusCode ?? 500);
    const at = new Date(d.createdAt.getTime() + ATTEMPT_OFFSETS_MS[i]!);
    rows.push({
      tenantId: d.tenantId,
      livemode: d.livemode,
      deliveryId: d.id,
      attemptedAt: last && d.deliveredAt ? d.deliveredAt : at,
      durationMs: last ? (d.durationMs ?? 100) : 100 + i * 37,
      responseStatus: status,
      ...answer(status, at),
      error: status >= 200 && status < 300 ? null : `http_${status}`,
    });
  }
  return rows;
}
