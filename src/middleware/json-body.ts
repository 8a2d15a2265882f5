import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import {
  MalformedJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../lib/errors";
import { inspectJson, parseJsonText } from "../lib/json-text";

export const MAX_BODY_BYTES = 1024 * 1024;

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** 415 for a body that is not declared JSON, or that is compressed (we never inflate bodies). */
const requireJsonContentType = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    const contentType = c.req.header("Content-Type") ?? "";
    const encoding = c.req.header("Content-Encoding")?.trim().toLowerCase();
    if (!JSON_MEDIA_TYPE.test(contentType) || (encoding && encoding !== "identity")) {
      throw new UnsupportedMediaTypeError();
    }
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
 * Query values never pass through a body schema: a NUL or a lone surrogate in any of them is
 * refused here, named `query.<name>`. (Path parameters are checked by their route schemas, which
 * know their names: see SafeString.)
 */
const checkQuery = createMiddleware<AppEnv>(async (c, next) => {
  const errors = Object.entries(c.req.queries()).flatMap(([name, values]) =>
    inspectJson([name, ...values]).map(({ message }) => ({ path: `query.${name}`, message })),
  );
  if (errors.length > 0) throw new ValidationError(errors);
  await next();
});

/**
 * Parses the body once, before any schema: invalid JSON is MALFORMED_JSON; NUL characters, lone
 * surrogates and nesting past 32 levels are a VALIDATION_ERROR naming the field (decisions.md,
 * "Hostile input"). The checked value is what the route validator then reads: `c.req.json()`
 * answers it instead of parsing the text again.
 */
const parseJson = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    let text: string;
    try {
      text = await c.req.text();
    } catch (error) {
      if (error instanceof PayloadTooLargeError) throw error;
      throw new MalformedJsonError();
    }
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      if (parsed.malformed) throw new MalformedJsonError();
      throw new ValidationError(parsed.errors);
    }
    const value = parsed.value;
    c.req.json = <T>() => Promise.resolve(value as T);
  }
  await next();
});

export const jsonBody = [requireJsonContentType, limitBody, checkQuery, parseJson] as const;
