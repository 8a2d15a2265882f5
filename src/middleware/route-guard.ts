import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../env";
import { MethodNotAllowedError, NotFoundError, ValidationError } from "../lib/errors";
import { parameterProblem } from "../lib/problem";

interface RouteEntry {
  method: string;
  path: string;
}

interface Endpoint {
  path: string;
  pattern: RegExp;
  methods: Set<string>;
}

/** "/api/v2/coupons/:code" -> a pattern of one segment per parameter. */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) =>
      segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${source}$`);
}

/** The endpoints (method-specific routes) by path, built once from the app's route table. */
function endpointsOf(routes: readonly RouteEntry[]): Endpoint[] {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of routes) {
    if (method === "ALL" || path.includes("*")) continue;
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(method);
    if (method === "GET") methods.add("HEAD");
    byPath.set(path, methods);
  }
  return [...byPath].map(([path, methods]) => ({ path, pattern: patternOf(path), methods }));
}

/** A path parameter's raw segment that is not percent-encoded UTF-8, by the parameter's name. */
function undecodableParameter(c: Context<AppEnv>, routePath: string): string | undefined {
  // Only a percent sign can make a segment undecodable: most requests end here, unparsed.
  if (!c.req.url.includes("%")) return undefined;
  const template = routePath.split("/");
  const raw = new URL(c.req.url).pathname.split("/");
  for (const [i, segment] of template.entries()) {
    if (!segment.startsWith(":")) continue;
    try {
      decodeURIComponent(raw[i] ?? "");
    } catch {
      return segment.slice(1);
    }
  }
  return undefined;
}

/**
 * Settles what an authenticated request addresses before anything reads it, so that the answer to
 * a wrong address never depends on its content type or body (a POST to an unknown path is 404, not
 * 415; without a valid key every versioned path is 401 first):
 * - no endpoint has this path: 404 NOT_FOUND;
 * - endpoints have it, with other methods: 405 METHOD_NOT_ALLOWED, with `Allow`; also when a
 *   parameter route of this method would take a path that is an endpoint of its own (GET
 *   /api/v4/orders/query is 405 with `Allow: POST`, not a 400 for an order id "query");
 * - a path parameter that is not percent-encoded UTF-8 (a lone surrogate's `%ED%A0%80`, `%FF`):
 *   400 naming the parameter. The router would pass such a segment on undecoded, so that two
 *   different paths would name the same resource.
 *
 * `routes` is read on the first wrong address, once every router is mounted. `wrongAddress` is
 * also the app's not-found answer, for the unversioned paths.
 */
export function routeGuard(routes: () => readonly RouteEntry[]) {
  let endpoints: Endpoint[] | undefined;
  let literals: Map<string, Set<string>> | undefined;
  /** The methods of the endpoint whose path is exactly `path`, without parameters (if any). */
  const literalMethods = (path: string): Set<string> | undefined => {
    endpoints ??= endpointsOf(routes());
    literals ??= new Map(
      endpoints.filter((e) => !e.path.includes(":")).map((e) => [e.path, e.methods]),
    );
    return literals.get(path);
  };
  const wrongAddress = (c: Context<AppEnv>): NotFoundError | MethodNotAllowedError => {
    endpoints ??= endpointsOf(routes());
    // A path that is an endpoint of its own allows its own methods only (see the middleware).
    const allowed =
      literalMethods(c.req.path) ??
      new Set(endpoints.filter((e) => e.pattern.test(c.req.path)).flatMap((e) => [...e.methods]));
    if (allowed.size === 0) return new NotFoundError("Route", `${c.req.method} ${c.req.path}`);
    return new MethodNotAllowedError(c.req.method, [...allowed].sort());
  };
  const middleware = createMiddleware<AppEnv>(async (c, next) => {
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    const endpoint = matchedRoutes(c).find(
      (route) => route.method === method && !route.path.includes("*"),
    );
    if (!endpoint) throw wrongAddress(c);
    // A path that is an endpoint of its own (POST /api/v4/orders/query) is that resource, though a
    // parameter route of another method would take it (GET /api/v4/orders/:id with id "query").
    if (endpoint.path.includes(":")) {
      const own = literalMethods(c.req.path);
      if (own && !own.has(c.req.method)) {
        throw new MethodNotAllowedError(c.req.method, [...own].sort());
      }
    }
    const parameter = undecodableParameter(c, endpoint.path);
    if (parameter) {
      throw new ValidationError([
        parameterProblem("param", parameter, "is not percent-encoded UTF-8"),
      ]);
    }
    await next();
  });
  return { middleware, wrongAddress };
}
