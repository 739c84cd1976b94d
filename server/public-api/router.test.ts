import { describe, expect, it } from "vitest";
import { defineRoute, ok, type AnyRoute, type HttpMethod } from "./define-route";
import { Router } from "./router";
import { publicRouter } from "./routes";

// The router decides 404 / 405 / which handler runs before anything else (spec "Errors": not_found,
// method_not_allowed; Planned routes answer 404 until released).

const route = (method: HttpMethod, path: string): AnyRoute =>
  defineRoute({
    operationId: `${method} ${path}`,
    summary: "",
    method,
    path,
    scope: null,
    rate: "read",
    responses: {},
    handler: async () => ok({}),
  });

const listCards = route("GET", "/cards");
const createCard = route("POST", "/cards");
const getCard = route("GET", "/cards/{code}");
const patchCard = route("PATCH", "/cards/{code}");
const deleteCard = route("DELETE", "/cards/{code}");
const messages = route("GET", "/conversations/{id}/messages");
const sendCards = route("POST", "/conversations/{id}/cards");
const dotted = route("GET", "/files/a.b");
const router = new Router(
  [listCards, createCard, getCard, patchCard, deleteCard, messages, sendCards, dotted],
  [
    { method: "POST", path: "/conversations/{id}/messages" },
    { method: "PUT", path: "/crm/status-map" },
  ],
);

describe("Router.match", () => {
  it("picks the route of the method and path", () => {
    expect(router.match("GET", "/cards")).toEqual({ kind: "route", route: listCards, params: {} });
    expect(router.match("POST", "/cards")).toEqual({ kind: "route", route: createCard, params: {} });
    expect(router.match("DELETE", "/cards/sku-1")).toEqual({
      kind: "route",
      route: deleteCard,
      params: { code: "sku-1" },
    });
  });

  it("extracts every path parameter as raw text, left percent-encoded for the caller to decode", () => {
    expect(router.match("GET", "/conversations/abc-123/messages")).toEqual({
      kind: "route",
      route: messages,
      params: { id: "abc-123" },
    });
    expect(router.match("GET", "/cards/a%2Fb%20c")).toMatchObject({ kind: "route", params: { code: "a%2Fb%20c" } });
  });

  it("matches paths exactly: a trailing slash is no route (the document declares none)", () => {
    expect(router.match("GET", "/cards/")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/cards/x/")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/cards")).toMatchObject({ kind: "route", route: listCards });
    expect(router.match("GET", "/cards/x")).toMatchObject({ kind: "route", route: getCard, params: { code: "x" } });
  });

  it("answers not_found for unknown paths, empty parameters and extra segments", () => {
    expect(router.match("GET", "/unknown")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/cards//")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/cards/a/b")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/conversations//messages")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/prefix/cards")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/cardsX")).toEqual({ kind: "not_found" });
  });

  it("matches literal segments literally (regex characters are escaped)", () => {
    expect(router.match("GET", "/files/a.b")).toMatchObject({ kind: "route", route: dotted });
    expect(router.match("GET", "/files/aXb")).toEqual({ kind: "not_found" });
  });

  it("answers method_not_allowed with every method the path has", () => {
    const m = router.match("PUT", "/cards/sku-1");
    expect(m.kind).toBe("method_not_allowed");
    expect(m.kind === "method_not_allowed" && [...m.allow].sort()).toEqual(["DELETE", "GET", "PATCH"]);
    const l = router.match("DELETE", "/cards");
    expect(l.kind === "method_not_allowed" && [...l.allow].sort()).toEqual(["GET", "POST"]);
  });

  it("is case-sensitive on the method", () => {
    expect(router.match("get", "/cards").kind).toBe("method_not_allowed");
  });

  it("answers a Planned method as not_found, not 405, even where the path has Available methods", () => {
    expect(router.match("POST", "/conversations/c1/messages")).toEqual({ kind: "not_found" });
    expect(router.match("PUT", "/crm/status-map")).toEqual({ kind: "not_found" });
    // Other unsupported methods on the same path still get 405.
    expect(router.match("DELETE", "/conversations/c1/messages")).toEqual({
      kind: "method_not_allowed",
      allow: ["GET"],
    });
  });

  it("lists its routes", () => {
    expect(router.routes).toHaveLength(8);
    expect(router.routes[0]).toBe(listCards);
  });
});

describe("the public route table", () => {
  it("routes the Planned conversation writes to their preview routes (the pipeline refuses them without the flag)", () => {
    for (const path of ["/conversations", "/conversations/x/messages", "/conversations/x/close"]) {
      const m = publicRouter.match("POST", path);
      expect(m.kind, path).toBe("route");
      expect(m.kind === "route" && m.route.preview, path).toBe("conversation-writes");
    }
    // Other methods on a preview-only path stay 404, never 405 with the preview's method in Allow.
    expect(publicRouter.match("GET", "/conversations/x/close")).toEqual({ kind: "not_found" });
  });

  it("routes the lead writes to their preview routes, and answers the spec's other Planned writes as not_found", () => {
    for (const [method, path] of [
      ["POST", "/leads"],
      ["PATCH", "/leads/x"],
      ["POST", "/leads/x/score"],
      ["PUT", "/crm/status-map"],
      ["GET", "/disclosures"],
    ]) {
      const m = publicRouter.match(method, path);
      expect(m.kind === "route" && m.route.preview, `${method} ${path}`).toBe("leads-writes");
    }
    // GET /leads stays an Available route; DELETE on a lead is not in the table at all (405 from GET's Allow).
    const list = publicRouter.match("GET", "/leads");
    expect(list.kind === "route" && list.route.operationId).toBe("listLeads");
    expect(publicRouter.match("DELETE", "/leads/x")).toEqual({ kind: "method_not_allowed", allow: ["GET"] });
  });

  it("routes the editorial profile and generation jobs to their preview routes, literal segments first (issue 72)", () => {
    for (const [method, path] of [
      ["GET", "/articles/editorial-profile"],
      ["PUT", "/articles/editorial-profile"],
      ["POST", "/articles/generation-jobs"],
      ["GET", "/articles/generation-jobs/x"],
    ]) {
      const m = publicRouter.match(method, path);
      expect(m.kind === "route" && m.route.preview, `${method} ${path}`).toBe("article-generation");
    }
    const article = publicRouter.match("GET", "/articles/5f0c2d7e-1111-4c1e-9a6b-1b2c3d4e5f60");
    expect(article.kind === "route" && article.route.operationId).toBe("getArticle");
  });

  it("routes the article writes and GET /sites to their preview routes (issue 71)", () => {
    for (const [method, path] of [
      ["PATCH", "/articles/x"],
      ["POST", "/articles/x/approve"],
      ["POST", "/articles/x/publish"],
      ["GET", "/sites"],
    ]) {
      const m = publicRouter.match(method, path);
      expect(m.kind === "route" && m.route.preview, `${method} ${path}`).toBe("articles-writes");
    }
    // GET /articles/{id} stays Available; its Allow never names the preview's PATCH.
    expect(publicRouter.match("DELETE", "/articles/x")).toEqual({ kind: "method_not_allowed", allow: ["GET"] });
    expect(publicRouter.match("POST", "/sites")).toEqual({ kind: "not_found" });
  });

  it("routes GET /me and answers 405 on POST /me", () => {
    expect(publicRouter.match("GET", "/me")).toMatchObject({ kind: "route" });
    expect(publicRouter.match("POST", "/me")).toEqual({ kind: "method_not_allowed", allow: ["GET"] });
  });

  it("has one route per method and path", () => {
    const seen = publicRouter.routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
