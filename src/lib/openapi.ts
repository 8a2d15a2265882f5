import type { z } from "@hono/zod-openapi";
import { ASSIGNABLE_RATE_LIMIT_TIERS, RATE_LIMIT_TIERS } from "../services/auth/rate-limit-tiers";

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

const TIER_LIST = ASSIGNABLE_RATE_LIMIT_TIERS.map((tier) => {
  const { limit, period } = RATE_LIMIT_TIERS[tier];
  return `${tier}: ${limit} requests per ${period} s`;
}).join("; ");

/** The decisions on rate limits, for the document's description (numbers from the tier table). */
export const RATE_LIMITS_DESCRIPTION = [
  `Rate limits: each API key has a tier (${TIER_LIST}; new keys get standard), counted per key, not per winery, and per Cloudflare location, approximately.`,
  "Every answer of /api/v2..v4 states its key's policy in `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers).",
  "Over the limit the answer is 429 RATE_LIMITED with `Retry-After` and `RateLimit` (`r=0`); other answers do not state the remaining count, because the limiter tells only whether a request is allowed.",
  "Requests without a valid key (401) and the unversioned routes (health, openapi.json, docs, problems) are not rate limited.",
  "If the limiter is unavailable, requests are let through without RateLimit headers.",
].join(" ");

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
