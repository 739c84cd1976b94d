import type { FieldError } from "@/server/errors";
import { refusedCharacterErrors } from "@/server/lib/control-characters";
import { fieldErrors } from "@/server/lib/validation";
import {
  EARLY_WINDOW_MS,
  EVENT_BYTES_MAX,
  EVENT_ID_MAX,
  IntakeEventSchema,
  LATE_WINDOW_MS,
  PROPERTIES_MAX,
  VALUE_TYPES,
  type IntakeEvent,
} from "@/server/schemas/intake";

// The rules one event of `POST /intake/events` must meet (issue 74 item 1), judged event by event so that
// one bad event never refuses its batch. Pure but for the clock it is given.

/** An event that met every rule (its ids' ownership is checked next, by the service). */
export interface ValidEvent {
  ok: true;
  /** Index in the batch. */
  index: number;
  event: IntakeEvent;
  occurredAtMs: number;
}

/** An event that broke a rule: what its raw row keeps of it, and the errors the answer gives. */
export interface RejectedEvent {
  ok: false;
  index: number;
  /** The `event_id` as sent when it is a string (the answer echoes it), else null. */
  sentId: string | null;
  /** The `type` as sent when it is a string, cut to 100 characters, else null. */
  type: string | null;
  errors: FieldError[];
}

export type JudgedEvent = ValidEvent | RejectedEvent;

const MINUTE_MS = 60_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A rejected event at `index` with `errors`, keeping what its row may store of `raw`. */
export function rejected(index: number, raw: unknown, errors: FieldError[]): RejectedEvent {
  const o = isObject(raw) ? raw : {};
  return {
    ok: false,
    index,
    sentId: typeof o.event_id === "string" ? o.event_id : null,
    type: typeof o.type === "string" ? o.type.slice(0, EVENT_ID_MAX) : null,
    errors,
  };
}

/** The bytes of a value as JSON (UTF-8). */
const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? "", "utf8");

/**
 * Judges one event of a batch against every rule of issue 74 item 1: its shape (IntakeEventSchema), at most
 * 32 KB as JSON, `occurred_at` from 7 days before `nowMs` to 10 minutes after it, `value` and `order_id` only
 * on purchase and conversion, at most 50 `properties`, `properties.visitor_id` a string of at most 200.
 * Field errors point into the body (`/events/<index>/occurred_at`); an event over 32 KB gets that one error.
 * @param nowMs the server clock (server/lib/clock.ts), ms
 */
export function judgeEvent(raw: unknown, index: number, nowMs: number): JudgedEvent {
  const at = `/events/${index}`;
  if (jsonBytes(raw) > EVENT_BYTES_MAX)
    return rejected(index, raw, [
      { field: at, code: "too_large", message: `must be at most ${EVENT_BYTES_MAX} bytes as JSON (32 KB)` },
    ]);
  // The pipeline leaves characters inside events to us (the route's `itemsJudgedByHandler`): such an event
  // is rejected alone, naming each refused string (its row stores no text holding one: intake.ts).
  const refused = refusedCharacterErrors(raw);
  if (refused.length)
    return rejected(
      index,
      raw,
      refused.map((e) => ({ ...e, field: `${at}${e.field}` })),
    );
  const parsed = IntakeEventSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) return rejected(index, raw, fieldErrors(parsed.error.issues, ["events", index]));
  const e = parsed.data;
  const errors: FieldError[] = [];
  const occurredAtMs = Date.parse(e.occurred_at);
  if (occurredAtMs < nowMs - LATE_WINDOW_MS || occurredAtMs > nowMs + EARLY_WINDOW_MS)
    errors.push({
      field: `${at}/occurred_at`,
      code: "out_of_range",
      message: `must be from 7 days ago to ${EARLY_WINDOW_MS / MINUTE_MS} minutes ahead of the server clock (${new Date(nowMs).toISOString()})`,
    });
  if (!VALUE_TYPES.includes(e.type))
    for (const field of ["value", "order_id"] as const)
      if (e[field] != null)
        errors.push({
          field: `${at}/${field}`,
          code: "not_supported",
          message: `is taken only on purchase and conversion events, not on ${e.type}`,
        });
  const props = e.properties;
  if (props) {
    if (Object.keys(props).length > PROPERTIES_MAX)
      errors.push({ field: `${at}/properties`, code: "too_many", message: `must have at most ${PROPERTIES_MAX} keys` });
    const visitor = props.visitor_id;
    if (visitor !== undefined && visitor !== null && (typeof visitor !== "string" || visitor.length > 200))
      errors.push({
        field: `${at}/properties/visitor_id`,
        code: "invalid_value",
        message: "must be a string of at most 200 characters (the snippet's anonymous visitor id)",
      });
  }
  if (errors.length) return rejected(index, raw, errors);
  return { ok: true, index, event: e, occurredAtMs };
}
