import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";

/** Answers JSON text built by Postgres as it is, through the context (middleware headers kept). */
export function jsonText(c: Context<AppEnv>, text: string, status: 200 | 201 = 200) {
  return c.body(text, status, { "Content-Type": "application/json; charset=utf-8" });
}

/** A text body cannot carry its type, so the route's schema types these handlers. */
type TextHandler<R extends RouteConfig> = (
  c: Parameters<RouteHandler<R, AppEnv>>[0],
) => Promise<Response>;
export const typedBy = <R extends RouteConfig>(handler: TextHandler<R>) =>
  handler as unknown as RouteHandler<R, AppEnv>;
