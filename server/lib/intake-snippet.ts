import { createHash } from "node:crypto";

// The site snippet of event intake (issue 74 item 6; docs/event-intake.md "The snippet"), served by the app
// at /intake.js (app/intake.js/route.ts). A tenant's page loads it with
// `<script src="https://YOUR-APP/intake.js" data-relay="/analytics/relay" defer></script>`; it posts page views
// (and `window.intake.track(type, fields)` events) to the tenant's OWN backend relay, which adds the API key
// and forwards them to `POST /api/public/v1/intake/events`. The key never reaches a browser: the API has no
// CORS (spec "General facts" 3).
//
// Kept as plain ES5-era text (no build step, no template placeholders) so any browser runs it as served:
// - the body goes as a string, i.e. `text/plain`: a beacon to a relay on another origin needs no CORS
//   preflight (which sendBeacon cannot make); the relay forwards it as `application/json`;
// - the anonymous visitor id lives in localStorage (first party, no cookie), or for the page's life when
//   storage is refused;
// - nothing is sent, and nothing stored, while `navigator.globalPrivacyControl` is true (GPC);
// - single-page sites: `history.pushState` and `popstate` send a page view whose referrer is the previous
//   address (an in-site navigation, so no new session); the same address twice in a row sends nothing;
// - texts are cut to intake's limits (address and referrer 2,000 characters, title 500, utm values 200), so
//   a long title never gets a page view rejected.

/** The script as served: under 3 KB gzipped (server/lib/intake-snippet.test.ts measures it). */
export const INTAKE_SCRIPT = `/* intake.js: page views to your own relay (docs/event-intake.md). */
(function (w, d) {
  "use strict";
  if (w.intake) return;
  var n = w.navigator, l = w.location, h = w.history;
  var s = d.currentScript;
  var relay = (s && s.getAttribute("data-relay")) || "/analytics/relay";
  var KEY = "intake_visitor_id";
  var memo = null, current = null, ref = d.referrer || "";

  function uuid() {
    var c = w.crypto, b = new Uint8Array(16), x = "", i;
    if (c && c.randomUUID) return c.randomUUID();
    if (c && c.getRandomValues) c.getRandomValues(b);
    else for (i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    for (i = 0; i < 16; i++) x += (i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "") + (b[i] + 256).toString(16).slice(1);
    return x;
  }

  function visitorId() {
    try {
      var id = w.localStorage.getItem(KEY);
      if (!id) w.localStorage.setItem(KEY, (id = uuid()));
      return id;
    } catch (e) {
      return memo || (memo = uuid());
    }
  }

  function utm() {
    var q = new URLSearchParams(l.search), u = null;
    ["source", "medium", "campaign"].forEach(function (k) {
      var v = q.get("utm_" + k);
      if (v) (u = u || {})[k] = v.slice(0, 200);
    });
    return u;
  }

  function send(type, fields) {
    if (n.globalPrivacyControl === true || typeof type != "string") return false;
    fields = fields || {};
    var ev = { event_id: uuid(), type: type, occurred_at: new Date().toISOString(),
      page: { url: l.href.slice(0, 2000), title: (d.title || "").slice(0, 500), referrer: ref.slice(0, 2000) } }, k;
    var u = utm();
    if (u) ev.utm = u;
    for (k in fields) if (Object.prototype.hasOwnProperty.call(fields, k)) ev[k] = fields[k];
    ev.type = type;
    ev.properties = {};
    for (k in fields.properties || {}) ev.properties[k] = fields.properties[k];
    ev.properties.visitor_id = visitorId();
    var body = JSON.stringify({ events: [ev] });
    try {
      if (n.sendBeacon && n.sendBeacon(relay, body)) return true;
    } catch (e) {}
    if (w.fetch) w.fetch(relay, { method: "POST", body: body, keepalive: true, credentials: "same-origin",
      headers: { "Content-Type": "text/plain;charset=UTF-8" } }).catch(function () {});
    return true;
  }

  function view() {
    if (l.href === current) return;
    if (current !== null) ref = current;
    current = l.href;
    send("page_view");
  }

  w.intake = { track: send };
  if (h && h.pushState) {
    var push = h.pushState;
    h.pushState = function () {
      var r = push.apply(this, arguments);
      view();
      return r;
    };
    w.addEventListener("popstate", view);
  }
  if (d.readyState == "loading") d.addEventListener("DOMContentLoaded", view);
  else view();
})(window, document);
`;

/** Strong entity tag of {@link INTAKE_SCRIPT}: a hash of its text, computed once per process. */
export const INTAKE_SCRIPT_ETAG = `"${createHash("sha256").update(INTAKE_SCRIPT).digest("base64url").slice(0, 22)}"`;

/**
 * How long browsers and CDNs keep the script (seconds): an hour, so a changed snippet reaches every site
 * within an hour, while a page view costs no round trip to the app; the ETag makes a revalidation a 304.
 */
export const INTAKE_SCRIPT_MAX_AGE = 3600;

/**
 * The answer of `GET /intake.js`: the script with `application/javascript; charset=utf-8`, public caching
 * for {@link INTAKE_SCRIPT_MAX_AGE} seconds, its ETag, and 304 (no body) when `If-None-Match` names it.
 * `Cross-Origin-Resource-Policy: cross-origin`: tenants' pages on other origins load it, also under COEP.
 */
export function intakeScriptResponse(request: Request): Response {
  const headers = {
    "content-type": "application/javascript; charset=utf-8",
    "cache-control": `public, max-age=${INTAKE_SCRIPT_MAX_AGE}`,
    etag: INTAKE_SCRIPT_ETAG,
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "cross-origin",
  };
  const ifNoneMatch = request.headers.get("if-none-match") ?? "";
  const matches = ifNoneMatch
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === INTAKE_SCRIPT_ETAG || t === "*");
  if (matches) return new Response(null, { status: 304, headers });
  return new Response(INTAKE_SCRIPT, { status: 200, headers });
}
