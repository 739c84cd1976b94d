import pino from "pino";

/**
 * Structured JSON logs. Redaction is the second line of defence: call sites log ids, never secrets;
 * these paths catch a header or field that slips through.
 */
export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "key",
  "*.key",
  "apiKey",
  "*.apiKey",
  "secret",
  "*.secret",
  "password",
  "*.password",
  "email",
  "*.email",
  "phone",
  "*.phone",
];

const KEY = Symbol.for("platform.logger");
type Holder = { [KEY]?: pino.Logger };

/**
 * A logger with the product's settings (JSON lines, redaction) writing to `destination`. The default is
 * stdout through a buffered asynchronous writer: a synchronous write per request line was the largest
 * single cost of a request under load (profiled in `npm run bench`). pino flushes the buffer on exit,
 * also after an uncaught exception; only a SIGKILL can lose the last few KB of lines.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  const dest = destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, base: undefined }, dest);
}

/** The process logger (level from LOG_LEVEL; silent under vitest unless LOG_LEVEL is set). */
export function log(): pino.Logger {
  const g = globalThis as Holder;
  if (!g[KEY]) g[KEY] = createLogger(process.env.LOG_LEVEL ?? (process.env.VITEST ? "silent" : "info"));
  return g[KEY];
}

/** Replaces the logger (tests capture lines with a custom destination). */
export function setLogger(l: pino.Logger | undefined): void {
  (globalThis as Holder)[KEY] = l;
}
