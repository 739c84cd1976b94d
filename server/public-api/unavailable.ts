import { hasErrorCode } from "@/server/lib/error-codes";

/** Error codes that mean the database (or its connection) is unreachable, not that a query was wrong. */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08006",
  "53300", // too_many_connections
]);

/** True when `err` (or any error in its `cause` chain) says the database cannot be reached: answered 503. */
export function isUnavailable(err: unknown): boolean {
  return hasErrorCode(err, UNAVAILABLE_CODES);
}
