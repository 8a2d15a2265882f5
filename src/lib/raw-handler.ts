import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../env";

/**
 * For handlers that answer a prebuilt Response (a stream, a stored idempotent replay): typed on
 * their route's validated input, while the route's schema still documents the body.
 */
export function rawResponseHandler<R extends RouteConfig>(
  handler: (c: Parameters<RouteHandler<R, AppEnv>>[0]) => Promise<Response>,
): RouteHandler<R, AppEnv> {
  return handler as unknown as RouteHandler<R, AppEnv>;
}
