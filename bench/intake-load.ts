// The request bodies and answer counting of the intake throughput row (issue 74 item 5): batches of 100
// events for `POST /intake/events`, a tenth of each batch duplicates of earlier ids, built by the load
// generator from pre-built pieces (wrk's Lua script, or bench/load.ts under autocannon), and the answers'
// `accepted`, `duplicate` and `rejected` verdicts counted there, so the bench process reads no answer.

/** Events in one batch of the throughput row (the spec's most). */
export const INTAKE_BATCH = 100;
/** Every tenth event of a batch (index 9, 19, ...) repeats the id of the event before it in an earlier batch. */
export const DUPLICATE_EVERY = 10;
/**
 * How many requests back a duplicate's original was sent: twice the bench's 16 connections, so the original's
 * batch has almost always been answered (one still in flight only makes the duplicate wait for its commit).
 * The first {@link DUPLICATE_LAG} batches of a run repeat an id of their own batch instead.
 */
export const DUPLICATE_LAG = 32;

/** The verdicts counted in the answers of a measured run. */
export interface IntakeCounts {
  accepted: number;
  duplicate: number;
  rejected: number;
}

/** One event's JSON around its id and its visitor number: `{"event_id":"` id `before` visitor `after`. */
interface Piece {
  before: string;
  after: string;
}

const REFERRERS = [
  "https://www.google.com/",
  "https://yandex.ru/search/?text=warm+socks",
  "https://chatgpt.com/",
  "",
  "https://bench.example/catalog",
  "https://bench.example/",
];

/**
 * The 100 event pieces of every batch: page views of a catalog (a sixth each from Google, Yandex, ChatGPT,
 * no referrer, and two internal referrers), some with utm tags (an e-mail campaign, a paid one), and one
 * custom event in ten; each with `properties.visitor_id`. No contacts, leads or values: the hot path of a
 * site's traffic. `occurredAt` is the events' `occurred_at` (the run must end within 7 days of it).
 */
export function intakePieces(occurredAt: string): Piece[] {
  return Array.from({ length: INTAKE_BATCH }, (_, i) => {
    const item = (i * 37) % 200;
    const referrer = REFERRERS[i % REFERRERS.length];
    const utm =
      i % 12 === 0
        ? { source: "newsletter", medium: "email", campaign: "winter" }
        : i % 17 === 0
          ? { source: "yandex", medium: "cpc", campaign: "socks" }
          : undefined;
    const rest = {
      type: i % 10 === 7 ? "custom:add_to_cart" : "page_view",
      occurred_at: occurredAt,
      page: {
        url: `https://bench.example/catalog/item-${item}?color=${i % 5}`,
        title: `Item ${item}`,
        ...(referrer ? { referrer } : {}),
      },
      ...(utm ? { utm } : {}),
      properties: { visitor_id: "" },
    };
    // `,"type":...,"properties":{"visitor_id":"` + visitor + `"}}`
    const json = JSON.stringify(rest);
    const cut = json.lastIndexOf('""');
    return { before: `",${json.slice(1, cut + 1)}v`, after: json.slice(cut + 1) };
  });
}

/** The id of event `i` of request `n` (1-based) of a run with `prefix`. */
function eventId(prefix: string, n: number, i: number): string {
  if (i % DUPLICATE_EVERY !== DUPLICATE_EVERY - 1) return `${prefix}-${n}-${i}`;
  return `${prefix}-${n > DUPLICATE_LAG ? n - DUPLICATE_LAG : n}-${i - 1}`;
}

/** The body of request `n` (1-based) of a run with `prefix`: 90 new events and 10 duplicates. */
export function intakeBody(pieces: Piece[], prefix: string, n: number): string {
  const events = pieces.map(
    (p, i) => `{"event_id":"${eventId(prefix, n, i)}${p.before}${(n * 13 + i) % 20_000}${p.after}`,
  );
  return `{"events":[${events.join(",")}]}`;
}

/** Counts the verdicts of one answer's body into `counts`. */
export function countVerdicts(body: string, counts: IntakeCounts): void {
  for (const m of body.matchAll(/"status":"(accepted|duplicate|rejected)"/g)) counts[m[1] as keyof IntakeCounts]++;
}

/** A Lua long string holding `s` as is. */
const lua = (s: string) => `[==[${s}]==]`;

/**
 * The wrk script's part for the intake row: `request` builds the same bodies as {@link intakeBody} from the
 * pieces, `response` counts the verdicts per thread, `setup` keeps the threads so that `done` can add them up
 * (read them with {@link INTAKE_LUA_COUNTS}).
 */
export function intakeLua(pieces: Piece[], prefix: string, headers: string): string {
  const before = pieces.map((p) => lua(p.before)).join(", ");
  const after = pieces.map((p) => lua(p.after)).join(", ");
  return `
local headers = { ${headers} }
local before = { ${before} }
local after = { ${after} }
local prefix = ${lua(prefix)}
local n = 0
accepted, duplicate, rejected = 0, 0, 0
local threads = {}
setup = function(thread) table.insert(threads, thread) end
request = function()
  n = n + 1
  local events = {}
  for i = 0, ${INTAKE_BATCH - 1} do
    local id
    if i % ${DUPLICATE_EVERY} ~= ${DUPLICATE_EVERY - 1} then id = prefix .. "-" .. n .. "-" .. i
    elseif n > ${DUPLICATE_LAG} then id = prefix .. "-" .. (n - ${DUPLICATE_LAG}) .. "-" .. (i - 1)
    else id = prefix .. "-" .. n .. "-" .. (i - 1) end
    events[i + 1] = '{"event_id":"' .. id .. before[i + 1] .. ((n * 13 + i) % 20000) .. after[i + 1]
  end
  return wrk.format("POST", nil, headers, '{"events":[' .. table.concat(events, ",") .. ']}')
end
response = function(status, headers, body)
  local _, a = string.gsub(body, '"status":"accepted"', "")
  local _, d = string.gsub(body, '"status":"duplicate"', "")
  local _, r = string.gsub(body, '"status":"rejected"', "")
  accepted, duplicate, rejected = accepted + a, duplicate + d, rejected + r
end
intake_counts = function()
  local a, d, r = 0, 0, 0
  for _, t in ipairs(threads) do
    a, d, r = a + t:get("accepted"), d + t:get("duplicate"), r + t:get("rejected")
  end
  return string.format(',"accepted":%d,"duplicate":%d,"rejected":%d', a, d, r)
end
`;
}

/** The Lua expression `done` appends to its JSON line: the verdict counts of an intake run, else "". */
export const INTAKE_LUA_COUNTS = `(intake_counts and intake_counts() or "")`;
