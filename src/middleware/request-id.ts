import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/** Printable ASCII, spaces included: safe in a header, a JSON body and a log line. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * X-Request-Id on every response (decisions.md, "Wire"): the caller's, if it sent one, else a
 * UUID. Any id a caller's tracing uses is kept as sent (`svc:123`, `a/b`, a W3C traceparent), of any
 * length the runtime accepts in a request header (decisions.md sets no limit, and an outside audit
 * found a 201-character id replaced when this kept at most 200); only a value that is not printable
 * ASCII (control characters, non-ASCII) or is empty is replaced by a generated one. Set before the
 * route runs, so that errors and streamed answers carry it too.
 */
export function requestIdFor(sent: string | undefined): string {
  const id = sent?.trim();
  return id && PRINTABLE.test(id) ? id : crypto.randomUUID();
}

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = requestIdFor(c.req.header("X-Request-Id"));
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
});
