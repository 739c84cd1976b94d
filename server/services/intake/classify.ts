// The traffic source of an intake event (issue 74 item 2; spec "Analytics shapes" TrafficSourceRow `source`
// and `kind`), decided once at intake from its utm tags, its referrer and its page, so that the rollups and
// every analytics read only count. Pure: no clock, no database.

/** TrafficSourceRow `source` (spec "Analytics shapes"). */
export type TrafficSource =
  "google" | "yandex" | "bing" | "chatgpt" | "perplexity" | "ai_other" | "social" | "ads" | "direct" | "other";
/** TrafficSourceRow `kind`. */
export type TrafficKind = "search" | "ai_assistant" | "social" | "ads" | "direct" | "other";

/** What classification reads of an event. */
export interface ClassifyInput {
  type: string;
  pageUrl?: string | null;
  referrer?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
}

/** The event's classification columns (db/schema/intake.ts `intake_events`). */
export interface Classification {
  source: TrafficSource;
  kind: TrafficKind;
  /** A page view that starts a session: not reached from the page's own site. */
  sessionStart: boolean;
  /** The page address's path, without query or fragment (they may hold personal data); null without a page. */
  pagePath: string | null;
}

const KIND: Record<TrafficSource, TrafficKind> = {
  google: "search",
  yandex: "search",
  bing: "search",
  chatgpt: "ai_assistant",
  perplexity: "ai_assistant",
  ai_other: "ai_assistant",
  social: "social",
  ads: "ads",
  direct: "direct",
  other: "other",
};

/** utm_medium values of paid traffic; a medium containing `paid`, `cpc` or an `ad`/`ads` word is paid too. */
const PAID_MEDIUMS = new Set(["cpc", "ppc", "cpm", "cpa", "cpv", "cpi", "paid", "ads", "ad", "display", "banner"]);
const PAID_WORD = /paid|cpc|ppc|cpm|(^|[^a-z])ads?($|[^a-z])/;

/**
 * Hosts and utm_source names, checked in this order (the first match wins): AI assistants before search,
 * since gemini.google.com and alice.yandex.ru are assistants on a search engine's domain, and Dzen before
 * Yandex. A host rule matches the host or any subdomain of it unless marked exact.
 */
const RULES: { source: TrafficSource; hosts: RegExp; names?: string[] }[] = [
  { source: "chatgpt", hosts: /(^|\.)(chatgpt\.com|chat\.openai\.com|openai\.com)$/, names: ["chatgpt", "openai"] },
  { source: "perplexity", hosts: /(^|\.)perplexity\.ai$/, names: ["perplexity"] },
  {
    source: "ai_other",
    hosts:
      /(^|\.)(claude\.ai|gemini\.google\.com|bard\.google\.com|copilot\.microsoft\.com|copilot\.cloud\.microsoft|deepseek\.com|you\.com|phind\.com|poe\.com|meta\.ai|grok\.com|mistral\.ai|giga\.chat|alice\.yandex\.[a-z.]+)$/,
    names: [
      "claude",
      "gemini",
      "copilot",
      "deepseek",
      "you.com",
      "phind",
      "poe",
      "grok",
      "mistral",
      "gigachat",
      "alice",
    ],
  },
  {
    source: "social",
    hosts:
      /(^|\.)(vk\.com|vk\.ru|vkontakte\.ru|t\.me|telegram\.org|telegram\.me|facebook\.com|fb\.com|instagram\.com|x\.com|twitter\.com|t\.co|linkedin\.com|lnkd\.in|ok\.ru|youtube\.com|youtu\.be|tiktok\.com|dzen\.ru|zen\.yandex\.ru|reddit\.com|pinterest\.com|threads\.net)$/,
    names: [
      "vk",
      "vkontakte",
      "telegram",
      "tg",
      "facebook",
      "fb",
      "instagram",
      "ig",
      "x",
      "twitter",
      "linkedin",
      "ok",
      "odnoklassniki",
      "youtube",
      "tiktok",
      "dzen",
      "zen",
      "reddit",
      "pinterest",
      "threads",
    ],
  },
  // Search engines: the engine's own host only (www. or a country domain), not its mail, docs or maps.
  { source: "google", hosts: /^(www\.)?google\.[a-z]{2,3}(\.[a-z]{2})?$/, names: ["google"] },
  { source: "yandex", hosts: /^((www\.)?yandex\.[a-z]{2,3}(\.[a-z]{2})?|(www\.)?ya\.ru)$/, names: ["yandex", "ya"] },
  { source: "bing", hosts: /^((www|cn)\.)?bing\.com$/, names: ["bing"] },
];

// Hosts and paths are read with a regular expression, not `new URL`: intake classifies every event of
// every batch, and a URL object costs several times more (issue 74's bench: 10,000 events a second).
const ADDRESS = /^https?:\/\/(?:[^/?#@]*@)?([^:/?#]*)[^/?#]*([^?#]*)/i;

/** Lower-cased host of an address, without `www.`; null for a path, an empty text or no address. */
function hostOf(address: string | null | undefined): string | null {
  const m = address ? ADDRESS.exec(address) : null;
  return m?.[1] ? m[1].toLowerCase().replace(/^www\./, "") : null;
}

/** The path of a page address (absolute or a site path), without query and fragment. */
export function pagePathOf(address: string | null | undefined): string | null {
  if (!address) return null;
  if (address.startsWith("/")) return address.split(/[?#]/)[0] || "/";
  const m = ADDRESS.exec(address);
  return m ? m[2] || "/" : null;
}

/** The source a host (or a utm_source that is a host) names, else null. */
function sourceOfHost(host: string): TrafficSource | null {
  for (const r of RULES) if (r.hosts.test(host)) return r.source;
  return null;
}

/** The source a utm_source value names (`google`, `chatgpt.com`, `vk`...), else null. */
function sourceOfUtm(value: string): TrafficSource | null {
  const v = value.trim().toLowerCase();
  if (!v) return null;
  for (const r of RULES) if (r.names?.includes(v)) return r.source;
  return sourceOfHost(
    v
      .replace(/^https?:\/\//, "")
      .replace(/^www\./, "")
      .split("/")[0],
  );
}

const result = (source: TrafficSource, sessionStart: boolean, pagePath: string | null): Classification => ({
  source,
  kind: KIND[source],
  sessionStart,
  pagePath,
});

/**
 * Classifies an event, first rule that applies:
 * 1. a paid utm_medium (cpc, ppc, cpm, paid, paid_social, display, ads...) → ads/ads;
 * 2. a utm_source naming a known source (google, yandex.ru, chatgpt.com, vk...) → that source;
 * 3. a referrer on the page's own host → direct/direct, and no session start (internal navigation);
 * 4. a referrer host of a known source (AI assistants, social networks, search engines) → that source;
 * 5. any other utm tag or external referrer → other/other; nothing at all → direct/direct.
 * `sessionStart` is true for a `page_view` not reached from the page's own host.
 */
export function classifyEvent(e: ClassifyInput): Classification {
  const pagePath = pagePathOf(e.pageUrl);
  const pageHost = hostOf(e.pageUrl);
  const refHost = hostOf(e.referrer);
  // A referrer that is a path of the site (`/pricing`) is internal too.
  const internal = (refHost !== null && refHost === pageHost) || Boolean(e.referrer?.startsWith("/"));
  const sessionStart = e.type === "page_view" && !internal;
  const medium = e.utmMedium?.trim().toLowerCase() ?? "";
  if (medium && (PAID_MEDIUMS.has(medium) || PAID_WORD.test(medium))) return result("ads", sessionStart, pagePath);
  const byUtm = e.utmSource ? sourceOfUtm(e.utmSource) : null;
  if (byUtm) return result(byUtm, sessionStart, pagePath);
  if (internal) return result("direct", false, pagePath);
  const byReferrer = refHost ? sourceOfHost(refHost) : null;
  if (byReferrer) return result(byReferrer, sessionStart, pagePath);
  const tagged = Boolean(e.utmSource?.trim() || medium || e.utmCampaign?.trim());
  // A referrer that is not an address (an app's name) still says the visitor came from somewhere.
  if (tagged || refHost || e.referrer?.trim()) return result("other", sessionStart, pagePath);
  return result("direct", sessionStart, pagePath);
}
