import { z } from "@hono/zod-openapi";
import { ERROR_STATUS, type ErrorCode } from "../lib/errors";
import { PROBLEM_CONTENT_TYPE } from "../lib/problem";

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "https://docs.winery-api.dev/problems/validation-error" }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: "email: Invalid email address" }),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    requestId: z.string(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: "One entry per field problem (VALIDATION_ERROR)." }),
  })
  .catchall(z.unknown())
  .openapi("Problem", {
    description:
      "RFC 9457 problem details. Some codes add members: STALE_UPDATE `currentUpdatedAt` or `currentVersion`, DUPLICATE_ORDER `orderId`.",
  });

const DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR:
    "VALIDATION_ERROR or MALFORMED_JSON: the body, path or query is invalid; `errors` names each field.",
  UNAUTHENTICATED: "UNAUTHENTICATED: the APIKey header is missing, unknown or revoked.",
  FORBIDDEN: "FORBIDDEN: a wineryId in the request is not the API key's winery.",
  NOT_FOUND: "NOT_FOUND: no such resource in the API key's winery.",
  CONFLICT: "A conflict with the current state (see `code`).",
  IDEMPOTENCY_KEY_REUSED: "IDEMPOTENCY_KEY_REUSED: the key was used with a different payload.",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE: the body exceeds 1 MiB.",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE: the body is not sent as application/json.",
  SERVICE_UNAVAILABLE:
    "SERVICE_UNAVAILABLE: the database cannot be reached; retry after `Retry-After` seconds.",
  INTERNAL_ERROR:
    "INTERNAL_ERROR: an error the service did not intercept; contact the administrator.",
};

function problemResponse(description: string) {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
}

/** Responses every authenticated JSON route can give. */
const COMMON: ErrorCode[] = [
  "VALIDATION_ERROR",
  "UNAUTHENTICATED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "SERVICE_UNAVAILABLE",
  "INTERNAL_ERROR",
];

const BODY_ERRORS: ErrorCode[] = ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

function responsesFor(codes: ErrorCode[]) {
  const responses: Record<number, ReturnType<typeof problemResponse>> = {};
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    const description = DESCRIPTIONS[code] ?? `${code}.`;
    const existing = responses[status];
    responses[status] = problemResponse(
      existing ? `${existing.description} Or ${description}` : description,
    );
  }
  return responses;
}

/** OpenAPI `responses` entries for the common errors plus the route's own. */
export function errorResponses(...extra: ErrorCode[]) {
  return responsesFor([...COMMON, ...extra]);
}

/** The same for a route without a request body (no 413/415). */
export function readErrorResponses(...extra: ErrorCode[]) {
  return responsesFor([...COMMON.filter((code) => !BODY_ERRORS.includes(code)), ...extra]);
}
