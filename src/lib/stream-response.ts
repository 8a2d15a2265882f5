import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { streamJsonArray } from "./json-stream";
import { describeError } from "./problem";

/**
 * A 200 whose body is a JSON array streamed from `batches` (streamJsonArray: the first batch is
 * read before the status line). A batch that fails after it cuts the body off, and is logged as a
 * failed request would be (`stream-aborted`, with the request's id and the error's chain), since
 * the caller sees only a body that ends early.
 */
export async function streamedArrayResponse(
  c: Context<AppEnv>,
  batches: AsyncGenerator<string[]>,
): Promise<Response> {
  const body = await streamJsonArray(batches, (error) =>
    console.error(
      JSON.stringify({
        level: "error",
        requestId: c.get("requestId"),
        method: c.req.method,
        path: c.req.path,
        event: "stream-aborted",
        error: describeError(error),
      }),
    ),
  );
  return c.body(body, 200, { "Content-Type": "application/json; charset=utf-8" });
}

/** A streamed body cannot carry its element type, so the route's schema types the handler. */
type StreamHandler<R extends RouteConfig> = (
  c: Parameters<RouteHandler<R, AppEnv>>[0],
) => Promise<Response>;
export const streamHandler = <R extends RouteConfig>(handler: StreamHandler<R>) =>
  handler as unknown as RouteHandler<R, AppEnv>;
