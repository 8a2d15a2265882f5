import { z } from "@hono/zod-openapi";
import { ERROR_DESCRIPTION, ERROR_STATUS, type ErrorCode } from "../lib/errors";
import { type HeaderName, headerRef } from "../lib/openapi";
import { PROBLEM_CONTENT_TYPE } from "../lib/problem";

export const ProblemSchema = z
  .object({
    type: z.string().openapi({
      example: "/api/problems/validation-error",
      description:
        "A URI reference, relative to the API's origin, that answers a description of the code (GET /api/problems/{slug}).",
    }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: "email: Invalid email address" }),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    requestId: z.string(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .openapi({
        description:
          'One entry per field problem (VALIDATION_ERROR). `path` names a body field as a dotted path (`items[2].sku`, `body` for the body as a whole), and a path, query or header parameter by its name (`tagName`, `Idempotency-Key`), its place ending the message: "is required (query parameter)".',
      }),
  })
  .catchall(z.unknown())
  .openapi("Problem", {
    description:
      "RFC 9457 problem details. Some codes add members: STALE_UPDATE `currentUpdatedAt` or `currentVersion`, DUPLICATE_ORDER `orderId`.",
  });

/** The headers an error code's answer carries besides every answer's (src/lib/errors.ts). */
const ERROR_HEADERS: Partial<Record<ErrorCode, HeaderName[]>> = {
  UNAUTHENTICATED: ["WWW-Authenticate"],
  IDEMPOTENCY_KEY_IN_USE: ["Retry-After"],
  RATE_LIMITED: ["Retry-After", "RateLimit"],
  SERVICE_UNAVAILABLE: ["Retry-After"],
};

interface ProblemResponse {
  description: string;
  content: { [PROBLEM_CONTENT_TYPE]: { schema: typeof ProblemSchema } };
  headers?: Record<string, ReturnType<typeof headerRef>>;
}

/**
 * Responses every authenticated JSON route can give. FORBIDDEN included: a wineryId in the query or
 * a JSON body that is not the key's winery is 403 on every route (src/middleware/json-body.ts).
 */
const COMMON: ErrorCode[] = [
  "VALIDATION_ERROR",
  "MALFORMED_JSON",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "SERVICE_UNAVAILABLE",
  "INTERNAL_ERROR",
];

const BODY_ERRORS: ErrorCode[] = ["MALFORMED_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

/** One response per status: its codes' descriptions joined, their headers together. */
function responsesFor(codes: ErrorCode[]) {
  const responses: Record<number, ProblemResponse> = {};
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    const description = `${code}: ${ERROR_DESCRIPTION[code]}`;
    const existing = responses[status];
    const response: ProblemResponse = existing ?? {
      description,
      content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
    };
    if (existing) response.description = `${existing.description} Or ${description}`;
    responses[status] = response;
    for (const name of ERROR_HEADERS[code] ?? []) {
      response.headers = { ...response.headers, [name]: headerRef(name) };
    }
  }
  return responses;
}

/** OpenAPI `responses` entries for the common errors plus the route's own. */
export function errorResponses(...extra: ErrorCode[]) {
  return responsesFor([...COMMON, ...extra]);
}

/** The same for a route without a request body (no MALFORMED_JSON, 413 or 415). */
export function readErrorResponses(...extra: ErrorCode[]) {
  return responsesFor([...COMMON.filter((code) => !BODY_ERRORS.includes(code)), ...extra]);
}

/**
 * `responses` with the answers of `codes` marked as replayable (Idempotent-Replayed): an idempotent
 * route's own refusals, which the key keeps and replays (src/services/idempotency/idempotency.ts).
 */
export function withReplayedProblems<R extends Record<number, ProblemResponse>>(
  responses: R,
  ...codes: ErrorCode[]
): R {
  for (const code of codes) {
    const response = responses[ERROR_STATUS[code]];
    if (!response) throw new Error(`${code} is not among the route's error responses`);
    response.headers = {
      ...response.headers,
      "Idempotent-Replayed": headerRef("Idempotent-Replayed"),
    };
  }
  return responses;
}
