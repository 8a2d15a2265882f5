/**
 * Domain errors. Services throw these; the one error handler (src/lib/problem.ts) turns them into
 * RFC 9457 problem+json. Nothing here knows about HTTP frameworks: the status is data.
 */

export type ErrorCode =
  | "VALIDATION_ERROR"
  | "MALFORMED_JSON"
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "STALE_UPDATE"
  | "CONFLICT"
  | "DUPLICATE_ORDER"
  | "IDEMPOTENCY_KEY_IN_USE"
  | "IDEMPOTENCY_KEY_REUSED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "NOT_REFUNDABLE"
  | "RATE_LIMITED"
  | "SERVICE_UNAVAILABLE"
  | "INTERNAL_ERROR";

export const ERROR_STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  MALFORMED_JSON: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  STALE_UPDATE: 409,
  CONFLICT: 409,
  DUPLICATE_ORDER: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_REFUNDABLE: 400,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

export const ERROR_TITLE: Record<ErrorCode, string> = {
  VALIDATION_ERROR: "Validation failed",
  MALFORMED_JSON: "Malformed JSON",
  UNAUTHENTICATED: "Unauthenticated",
  FORBIDDEN: "Forbidden",
  NOT_FOUND: "Not found",
  METHOD_NOT_ALLOWED: "Method not allowed",
  STALE_UPDATE: "Stale update",
  CONFLICT: "Conflict",
  DUPLICATE_ORDER: "Duplicate order",
  IDEMPOTENCY_KEY_IN_USE: "Idempotency key in use",
  IDEMPOTENCY_KEY_REUSED: "Idempotency key reused",
  PAYLOAD_TOO_LARGE: "Payload too large",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  NOT_REFUNDABLE: "Not refundable",
  RATE_LIMITED: "Rate limited",
  SERVICE_UNAVAILABLE: "Service unavailable",
  INTERNAL_ERROR: "Internal error",
};

/**
 * When each code happens (decisions.md "Errors"): served at the problem's `type` URI,
 * /api/problems/{slug}, and quoted in the OpenAPI document's error responses.
 */
export const ERROR_DESCRIPTION: Record<ErrorCode, string> = {
  VALIDATION_ERROR:
    "The body, path or query fails its schema or a business validation; `errors` names each field.",
  MALFORMED_JSON: "The request body is not valid JSON, or not UTF-8.",
  UNAUTHENTICATED: "The APIKey header is missing, unknown or revoked (one answer for all three).",
  FORBIDDEN:
    "A wineryId in the path, query or body is not the API key's winery; `errors[].path` names where it was.",
  NOT_FOUND:
    "The resource does not exist in the API key's winery (other wineries' ids answer the same).",
  METHOD_NOT_ALLOWED:
    "The path exists, but not with this method; the `Allow` header lists the methods it takes.",
  STALE_UPDATE:
    "The optimistic lock was lost: the resource changed since it was read. The body carries `currentUpdatedAt` (orders) or `currentVersion` (sessions); read it again and retry.",
  CONFLICT:
    "The request conflicts with the current state (an occupied slot, say); `detail` names what.",
  DUPLICATE_ORDER:
    "An order with this external id was already imported on this channel; the body carries its `orderId`.",
  IDEMPOTENCY_KEY_IN_USE:
    "A request with the same Idempotency-Key is still in flight; retry after `Retry-After` seconds.",
  IDEMPOTENCY_KEY_REUSED: "The Idempotency-Key was already used with a different payload.",
  PAYLOAD_TOO_LARGE: "The request body exceeds 1 MiB.",
  UNSUPPORTED_MEDIA_TYPE:
    "The body was sent without a JSON content type (application/json), with a charset other than UTF-8, or compressed (Content-Encoding).",
  NOT_REFUNDABLE:
    "The refund cannot be made: no in-house payment, nothing left to refund, or an amount over the refundable rest.",
  RATE_LIMITED:
    "The API key's request rate is over the limit of its tier (RateLimit-Policy); nothing was done. Retry after `Retry-After` seconds.",
  SERVICE_UNAVAILABLE:
    "The database cannot be reached; nothing was half-written. Retry after `Retry-After` seconds. A write whose commit reached the database just as it stopped answering may have been applied whole (no client can tell): send E1, E14 and E19 with an Idempotency-Key and retry with the same key, which applies them once.",
  INTERNAL_ERROR:
    "An error the service did not intercept; contact the administrator with the `requestId`.",
};

/** The detail of INTERNAL_ERROR, as the interface words it. */
export const INTERNAL_ERROR_DETAIL =
  "The error was not intercepted by the service; please contact the administrator.";

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      errors?: FieldError[];
      /** Extra members of the problem body, such as `orderId` or `currentUpdatedAt`. */
      extensions?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = ERROR_STATUS[code];
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], message?: string) {
    // A field can fail one rule in two checks (an integer's own safe range and the schema's bound,
    // "Too big: expected int ..." and "Too big: expected number ..."): the caller learns each
    // kind of problem of a field once, the first check's words.
    const distinct = distinctFieldErrors(errors);
    super("VALIDATION_ERROR", message ?? describeFieldErrors(distinct), { errors: distinct });
  }
}

function distinctFieldErrors(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\u0000${e.message.split(":")[0]}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export class MalformedJsonError extends AppError {
  constructor(message = "The request body is not valid JSON.") {
    super("MALFORMED_JSON", message);
  }
}

export class UnauthenticatedError extends AppError {
  constructor() {
    // RFC 9110 asks a 401 for a challenge: the scheme is the API's own header.
    super("UNAUTHENTICATED", "A valid APIKey header is required.", {
      headers: { "WWW-Authenticate": 'APIKey realm="api", header="APIKey"' },
    });
  }
}

export class ForbiddenError extends AppError {
  /** `path` names the field that carried the other winery's id (`errors[].path`). */
  constructor(path = "wineryId") {
    super("FORBIDDEN", "The wineryId does not belong to the API key's winery.", {
      errors: [{ path, message: "is not the API key's winery" }],
    });
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string | number) {
    super(
      "NOT_FOUND",
      id === undefined ? `${resource} not found.` : `${resource} ${id} not found.`,
    );
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: string[]) {
    super(
      "METHOD_NOT_ALLOWED",
      `This path does not take ${method}; it takes ${allowed.join(", ")}.`,
      {
        headers: { Allow: allowed.join(", ") },
      },
    );
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super("PAYLOAD_TOO_LARGE", `The request body exceeds ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor() {
    super(
      "UNSUPPORTED_MEDIA_TYPE",
      "Send the body as UTF-8 JSON with Content-Type: application/json, uncompressed.",
    );
  }
}

export const RETRY_AFTER_SECONDS = 5;

export const SERVICE_UNAVAILABLE_DETAIL =
  "The database cannot be reached right now; nothing was half-written. Retry after Retry-After seconds. A write whose commit reached the database just as it stopped answering may have been applied whole: retry E1, E14 and E19 with the same Idempotency-Key, which applies them once.";

export class ServiceUnavailableError extends AppError {
  constructor() {
    // The detail says what a client must know to retry a write safely (an outside fault audit: a
    // keyed E1 answered 503 had been committed, as its COMMIT reached the database as it paused).
    super("SERVICE_UNAVAILABLE", SERVICE_UNAVAILABLE_DETAIL, {
      headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
    });
  }
}

/** "path: message (and N more)": the detail of a VALIDATION_ERROR. */
export function describeFieldErrors(errors: FieldError[]): string {
  const first = errors[0];
  if (!first) return "The request is invalid.";
  const head = `${first.path || "body"}: ${first.message}`;
  return errors.length > 1 ? `${head} (and ${errors.length - 1} more)` : head;
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super("RATE_LIMITED", "This API key is over its request rate limit; retry later.", {
      headers: { "Retry-After": String(retryAfterSeconds) },
    });
  }
}

export class StaleUpdateError extends AppError {
  constructor(extensions: { currentUpdatedAt: string } | { currentVersion: number }) {
    super("STALE_UPDATE", "The resource was modified concurrently; read it again and retry.", {
      extensions,
    });
  }
}

export class DuplicateOrderError extends AppError {
  constructor(orderId: number) {
    super(
      "DUPLICATE_ORDER",
      "An order with this external id was already imported on this channel.",
      {
        extensions: { orderId },
      },
    );
  }
}

export class IdempotencyKeyInUseError extends AppError {
  constructor() {
    super("IDEMPOTENCY_KEY_IN_USE", "A request with this Idempotency-Key is still in flight.", {
      headers: { "Retry-After": "1" },
    });
  }
}

export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different payload.");
  }
}
