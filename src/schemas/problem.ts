import { z } from "@hono/zod-openapi";
import { ERROR_DESCRIPTION, ERROR_STATUS, type ErrorCode } from "../lib/errors";
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
      .openapi({ description: "One entry per field problem (VALIDATION_ERROR)." }),
  })
  .catchall(z.unknown())
  .openapi("Problem", {
    description:
      "RFC 9457 problem details. Some codes add members: STALE_UPDATE `currentUpdatedAt` or `currentVersion`, DUPLICATE_ORDER `orderId`.",
  });

function problemResponse(description: string) {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
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

function responsesFor(codes: ErrorCode[]) {
  const responses: Record<number, ReturnType<typeof problemResponse>> = {};
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    const description = `${code}: ${ERROR_DESCRIPTION[code]}`;
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

/** The same for a route without a request body (no MALFORMED_JSON, 413 or 415). */
export function readErrorResponses(...extra: ErrorCode[]) {
  return responsesFor([...COMMON.filter((code) => !BODY_ERRORS.includes(code)), ...extra]);
}
