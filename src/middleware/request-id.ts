import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/** The longest caller id kept; a longer one is replaced, as a missing one is. */
const MAX_REQUEST_ID_LENGTH = 200;

/** Printable ASCII, spaces included: safe in a header, a JSON body and a log line. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * X-Request-Id on every response (decisions.md, "Wire"): the caller's, if it sent one, else a
 * UUID. Any id a caller's tracing uses is kept as sent (`svc:123`, `a/b`, a W3C traceparent), up to
 * MAX_REQUEST_ID_LENGTH printable ASCII characters; anything else (control characters, non-ASCII,
 * an empty or over-long value) is replaced by a generated one. Set before the route runs, so that
 * errors and streamed answers carry it too.
 */
export function requestIdFor(sent: string | undefined): string {
  const id = sent?.trim();
  return id && id.length <= MAX_REQUEST_ID_LENGTH && PRINTABLE.test(id) ? id : crypto.randomUUID();
}

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = requestIdFor(c.req.header("X-Request-Id"));
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
});
