import type { z } from "@hono/zod-openapi";

/** A required JSON request body (the validator then refuses a missing one). */
export const jsonRequestBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  ...(description && { description }),
  content: { "application/json": { schema } },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The rate-limit headers (src/middleware/rate-limit.ts), declared once as components. */
export const RATE_LIMIT_HEADER_COMPONENTS = {
  "RateLimit-Policy": {
    description:
      'The API key\'s rate-limit tier and its quota, as in draft-ietf-httpapi-ratelimit-headers: `"<tier>";q=<requests>;w=<window seconds>`, e.g. `"standard";q=600;w=60`. Counted per API key and Cloudflare location, approximately. Absent only if the limiter is unavailable (requests are then let through).',
    schema: { type: "string", example: '"standard";q=600;w=60' },
  },
  RateLimit: {
    description:
      'Sent with a 429: `"<tier>";r=0;t=<seconds>`, nothing left in the window, which ends within `t` seconds. Not sent on other answers: the limiter tells only whether a request is allowed, so the remaining count is not known then.',
    schema: { type: "string", example: '"standard";r=0;t=60' },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 0, example: 60 },
  },
} as const;

type HeaderRefs = Record<string, unknown>;
type Paths = Record<
  string,
  Record<string, { responses?: Record<string, { headers?: HeaderRefs }> }>
>;

const ref = (name: keyof typeof RATE_LIMIT_HEADER_COMPONENTS) => ({
  $ref: `#/components/headers/${name}`,
});

/**
 * Declares the rate-limit headers on every response of every versioned operation, so that a route
 * added later gets them without a line of its own (the 429 response itself comes with
 * errorResponses). A 401 is answered before the key is known, so it carries none.
 */
export function withRateLimitHeaders<T extends { paths?: unknown }>(document: T): T {
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Paths)) {
    if (!/^\/api\/v[234]\//.test(path)) continue;
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (status === "401") continue;
        response.headers = {
          ...response.headers,
          "RateLimit-Policy": ref("RateLimit-Policy"),
          ...(status === "429" && {
            RateLimit: ref("RateLimit"),
            "Retry-After": ref("Retry-After"),
          }),
        };
      }
    }
  }
  return document;
}
