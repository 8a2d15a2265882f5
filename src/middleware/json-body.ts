import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { MalformedJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from "../lib/errors";

export const MAX_BODY_BYTES = 1024 * 1024;

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** 415 for a body that is not declared JSON. */
const requireJsonContentType = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    const contentType = c.req.header("Content-Type") ?? "";
    if (!JSON_MEDIA_TYPE.test(contentType)) throw new UnsupportedMediaTypeError();
  }
  await next();
});

/** 413 past 1 MiB: by Content-Length when declared (the runtime enforces it), else counted. */
const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new PayloadTooLargeError(MAX_BODY_BYTES);
  },
});

/**
 * Parses the body once, so that invalid JSON is MALFORMED_JSON before any schema runs; Hono caches
 * the parsed value for the route validator.
 */
const parseJson = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    try {
      await c.req.json();
    } catch (error) {
      if (error instanceof PayloadTooLargeError) throw error;
      throw new MalformedJsonError();
    }
  }
  await next();
});

export const jsonBody = [requireJsonContentType, limitBody, parseJson] as const;
