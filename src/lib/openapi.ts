import type { z } from "@hono/zod-openapi";
import { ASSIGNABLE_RATE_LIMIT_TIERS, RATE_LIMIT_TIERS } from "../services/auth/rate-limit-tiers";

/**
 * A required JSON request body (the validator then refuses a missing one); `example`, a whole
 * body (the docs' "Test request" starts from it), is held valid by test/app/openapi-examples.
 */
export const jsonRequestBody = <T extends z.ZodType>(
  schema: T,
  description?: string,
  example?: z.input<T>,
) => ({
  required: true,
  ...(description && { description }),
  content: { "application/json": { schema, ...(example !== undefined && { example }) } },
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
  "Every answer of /api/v2..v4 to a verified key states its key's policy in `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers); a 503 answered before the key could be verified (the database unreachable, the key not verified in the last seconds) has none.",
  "Over the limit the answer is 429 RATE_LIMITED with `Retry-After` and `RateLimit` (`r=0`); other answers do not state the remaining count, because the limiter tells only whether a request is allowed.",
  "Requests without a valid key (401) and the unversioned routes (health, openapi.json, docs, problems) are not rate limited.",
  "If the limiter is unavailable, requests are let through without RateLimit headers.",
].join(" ");

/**
 * Every response header the service sets on purpose, declared once as components: responses refer
 * to them (`headerRef`), never restate them. Which response carries which: `withCommonHeaders`
 * below (X-Request-Id, RateLimit-Policy), errorResponses in src/schemas/problem.ts (the headers of
 * an error code), `replayableResponse` (Idempotent-Replayed).
 */
export const HEADER_COMPONENTS = {
  "X-Request-Id": {
    description:
      "The request's id: the caller's `X-Request-Id` when it sent one of printable ASCII characters (spaces included; of any length a request header may have), else a generated uuid. On every answer, errors and replays included; a problem's `requestId` repeats it.",
    schema: { type: "string", example: "0b0f7b1e-3c1a-4f3e-9d2a-7c5e1f2a9b10" },
  },
  "RateLimit-Policy": {
    description:
      'The API key\'s rate-limit tier and its quota, as in draft-ietf-httpapi-ratelimit-headers: `"<tier>";q=<requests>;w=<window seconds>`, e.g. `"standard";q=600;w=60`. Counted per API key and Cloudflare location, approximately. Absent only if the limiter is unavailable (requests are then let through), and on a 503 answered before the key could be verified (the database unreachable).',
    schema: { type: "string", example: '"standard";q=600;w=60' },
  },
  RateLimit: {
    description:
      'Sent with a 429: `"<tier>";r=0;t=<seconds>`, nothing left in the window, which ends within `t` seconds. Not sent on other answers: the limiter tells only whether a request is allowed, so the remaining count is not known then.',
    schema: { type: "string", example: '"standard";r=0;t=60' },
  },
  "Retry-After": {
    description:
      "Seconds to wait before retrying. Sent with 429 RATE_LIMITED, 503 SERVICE_UNAVAILABLE and 409 IDEMPOTENCY_KEY_IN_USE (not with the other codes that share those statuses).",
    schema: { type: "integer", minimum: 0, example: 60 },
  },
  "WWW-Authenticate": {
    description: "Sent with a 401: the challenge of the API's own scheme, the `APIKey` header.",
    schema: { type: "string", example: 'APIKey realm="api", header="APIKey"' },
  },
  Location: {
    description:
      "Sent with a 201: the created resource's address, a path under /api (GET it to read the resource).",
    schema: {
      type: "string",
      example: "/api/v2/customerclass/0b0f7b1e-3c1a-4f3e-9d2a-7c5e1f2a9b10",
    },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when the answer is the replay of an earlier request with the same Idempotency-Key and payload (nothing was written); absent on a first answer.",
    schema: { type: "string", enum: ["true"] as string[] },
  },
} as const;

export type HeaderName = keyof typeof HEADER_COMPONENTS;

/** A response's reference to a declared header. */
export const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** `jsonResponse` of an idempotent route's success: a replay says so (Idempotent-Replayed). */
export const replayableResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  ...jsonResponse(schema, description),
  headers: { "Idempotent-Replayed": headerRef("Idempotent-Replayed") },
});

/** A 201's response, with the created resource's Location. */
export const withLocation = <T extends object>(response: T) => ({
  ...response,
  headers: {
    ...(response as { headers?: Record<string, { $ref: string }> }).headers,
    Location: headerRef("Location"),
  },
});

type HeaderRefs = Record<string, unknown>;
type Paths = Record<
  string,
  Record<string, { responses?: Record<string, { headers?: HeaderRefs }> }>
>;

/**
 * Declares the headers every answer carries on every response of every operation, so that a route
 * added later gets them without a line of its own: X-Request-Id everywhere, and RateLimit-Policy on
 * the versioned operations (a 401 is answered before the key is known, so it carries none). The
 * headers of an error code (Retry-After, RateLimit) come with errorResponses.
 */
export function withCommonHeaders<T extends { paths?: unknown }>(document: T): T {
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Paths)) {
    const versioned = /^\/api\/v[234]\//.test(path);
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = {
          "X-Request-Id": headerRef("X-Request-Id"),
          ...response.headers,
          ...(versioned &&
            status !== "401" && { "RateLimit-Policy": headerRef("RateLimit-Policy") }),
        };
      }
    }
  }
  return document;
}
