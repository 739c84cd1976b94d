import type { AnyRoute, HttpMethod } from "./define-route";

/** Result of matching a request line against the declared routes. */
export type Match =
  | { kind: "route"; route: AnyRoute; params: Record<string, string> }
  | { kind: "not_found" }
  | { kind: "method_not_allowed"; allow: HttpMethod[] };

interface Compiled {
  route: AnyRoute;
  re: RegExp;
  names: string[];
}

function compile(path: string): { re: RegExp; names: string[] } {
  const names: string[] = [];
  const src = path
    .split("/")
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (m) {
        names.push(m[1]);
        return "([^/]+)";
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return { re: new RegExp(`^${src}$`), names };
}

/**
 * The route table. `planned` lists method+path pairs of Planned routes: they answer 404 like unknown
 * paths, not 405, even where the path has Available methods (e.g. POST /conversations).
 */
export class Router {
  private readonly compiled: Compiled[];
  private readonly planned: { method: string; re: RegExp }[];

  /**
   * @param preview routes of preview features (`route.preview`): they match their own method and path
   *   (taking it out of `planned`), but never add to another method's `Allow`, so a tenant without the
   *   feature sees those paths exactly as Planned ones. The pipeline refuses them for such tenants.
   */
  constructor(
    routes: readonly AnyRoute[],
    planned: readonly { method: HttpMethod; path: string }[] = [],
    preview: readonly AnyRoute[] = [],
  ) {
    // A literal segment wins over a parameter (`GET /articles/editorial-profile` is not `GET /articles/{id}`):
    // fewer parameters first; the sort is stable, so the table's order holds otherwise.
    this.compiled = [...routes, ...preview]
      .map((route) => ({ route, ...compile(route.path) }))
      .sort((a, b) => a.names.length - b.names.length);
    const released = new Set(preview.map((r) => `${r.method} ${r.path}`));
    this.planned = planned
      .filter((p) => !released.has(`${p.method} ${p.path}`))
      .map((p) => ({ method: p.method, re: compile(p.path).re }));
  }

  /**
   * Matches `path` (relative to `/api/public/v1`, already percent-decoded per segment by the caller).
   * Exact: `/cards/` is not `/cards` (docs/interpretations.md "Exact paths"; the pipeline's 404 names the route meant).
   */
  match(method: string, path: string): Match {
    if (this.planned.some((p) => p.method === method && p.re.test(path))) return { kind: "not_found" };
    const allow = new Set<HttpMethod>();
    for (const c of this.compiled) {
      const m = c.re.exec(path);
      if (!m) continue;
      if (c.route.method === method) {
        const params: Record<string, string> = {};
        c.names.forEach((n, i) => (params[n] = m[i + 1]));
        return { kind: "route", route: c.route, params };
      }
      if (!c.route.preview) allow.add(c.route.method);
    }
    return allow.size ? { kind: "method_not_allowed", allow: [...allow] } : { kind: "not_found" };
  }

  get routes(): AnyRoute[] {
    return this.compiled.map((c) => c.route);
  }
}
