import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./env";
import { AppError, type ErrorCode, INTERNAL_ERROR_DETAIL, MalformedJsonError } from "./lib/errors";
import { HEADER_COMPONENTS, RATE_LIMITS_DESCRIPTION, withCommonHeaders } from "./lib/openapi";
import { describeError, toProblem } from "./lib/problem";
import { createRouter } from "./lib/router";
import { requireApiKey } from "./middleware/authenticate";
import { database } from "./middleware/database";
import { jsonBody } from "./middleware/json-body";
import { normalizeErrors } from "./middleware/normalize-errors";
import { rateLimitByKey } from "./middleware/rate-limit";
import { requestId, requestIdFor } from "./middleware/request-id";
import { routeGuard } from "./middleware/route-guard";
import { docsRoutes } from "./routes/system/docs.routes";
import { healthRoutes } from "./routes/system/health.routes";
import { problemsRoutes } from "./routes/system/problems.routes";
import { v2 } from "./routes/v2";
import { v3 } from "./routes/v3";
import { v4 } from "./routes/v4";

const HTTP_EXCEPTION_CODES: Record<number, ErrorCode> = {
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

/** Hono's own HTTPExceptions (e.g. the validator's "Malformed JSON") in our vocabulary. */
function fromHttpException(error: HTTPException): AppError {
  if (error.status === 400) return new MalformedJsonError();
  const code = HTTP_EXCEPTION_CODES[error.status];
  return code
    ? new AppError(code, error.message || code)
    : new AppError("INTERNAL_ERROR", INTERNAL_ERROR_DETAIL);
}

/**
 * The one place an error becomes a response, answered through the context so that the headers
 * middleware prepared (X-Request-Id) are on it.
 */
function problemResponse(c: Context<AppEnv>, error: unknown): Response {
  const appError = error instanceof HTTPException ? fromHttpException(error) : error;
  // Outside /api the middleware has not run: the caller's id still comes back, by the same rule.
  const requestIdValue = c.get("requestId") ?? requestIdFor(c.req.header("X-Request-Id"));
  const problem = toProblem(appError, requestIdValue);
  if (problem.status >= 500) {
    // A 503 is the documented answer to a database that cannot be reached, not a fault of the
    // Worker: a warning without a stack (an outage answers hundreds of them; `npm run dev` printed
    // each as a red error block with its stack trace). Anything else is an error, with its stack.
    const unavailable = problem.status === 503;
    (unavailable ? console.warn : console.error)(
      JSON.stringify({
        level: unavailable ? "warn" : "error",
        requestId: requestIdValue,
        method: c.req.method,
        path: c.req.path,
        code: problem.body.code,
        error: describeError(error, { stack: !unavailable }),
      }),
    );
  }
  c.header("X-Request-Id", requestIdValue);
  return c.body(
    JSON.stringify(problem.body),
    problem.status as ContentfulStatusCode,
    problem.headers,
  );
}

export function createApp() {
  const app = createRouter().basePath("/api");

  app.use(requestId);
  app.use(normalizeErrors);
  app.use(database);
  const guard = routeGuard(() => app.routes);

  for (const [prefix, router] of [
    ["/v2", v2],
    ["/v3", v3],
    ["/v4", v4],
  ] as const) {
    // Rate limited by key, so after authentication (a 401 counts against nothing) and before the
    // body is read (a request over the limit costs no parsing). The route guard answers a wrong
    // address (404, 405) before any body rule could (415, 413, 400).
    app.use(`${prefix}/*`, requireApiKey, rateLimitByKey, guard.middleware, ...jsonBody);
    app.route(prefix, router);
  }

  app.route("/", healthRoutes);
  app.route("/", problemsRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "APIKey", {
    type: "apiKey",
    in: "header",
    name: "APIKey",
    description:
      "The winery's API key (`npm run apikey -- create --winery <uuid> --name <label>`).",
  });
  for (const [name, header] of Object.entries(HEADER_COMPONENTS)) {
    app.openAPIRegistry.registerComponent("headers", name, header);
  }
  // doc31's document plus the headers every answer carries (X-Request-Id, RateLimit-Policy).
  app.get("/openapi.json", (c) =>
    c.json(
      withCommonHeaders(
        app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "Winery commerce and CRM API",
            version: "1.0.0",
            description: `Back-office API for wineries: orders, commerce sessions, receipts, coupons, catalogue, experiences, reservations and contacts. Errors are RFC 9457 problem+json; every response carries X-Request-Id: the caller's, when it sent one of printable ASCII characters (any length), else a generated UUID. A path that exists without the request's method answers 405 METHOD_NOT_ALLOWED with an Allow header. Every POST and PUT takes a JSON body: one sent without a JSON Content-Type (application/json, or application/*+json) is 415 UNSUPPORTED_MEDIA_TYPE; a request without a body (none, or an empty one), which sent nothing to declare, is 400 MALFORMED_JSON whatever its Content-Type (send \`{}\` for a request of no fields, such as E16 without filters). Anywhere in a JSON body (free-form objects included) these are 400 VALIDATION_ERROR naming the field: NUL characters and lone UTF-16 surrogates in strings or keys, nesting deeper than 32 levels, arrays of more than 1,000 elements, and numbers that would not come back as sent (an integer past 2^53 whose digits a double changes, such as 12345678901234567890; a value past ±1.7976931348623157e308; a non-zero one below 5e-324): send such a number as a string. A date-time is RFC 3339 with an upper-case T and Z (or an offset) and seconds 00..59, its fraction of up to 9 digits; an instant is kept to the millisecond (a finer fraction is cut toward the past, while a range filter compares it as sent).\n\n${RATE_LIMITS_DESCRIPTION}`,
          },
          servers: [{ url: new URL(c.req.url).origin }],
          security: [{ APIKey: [] }],
        }),
      ),
    ),
  );
  app.route("/", docsRoutes);

  app.notFound((c) => problemResponse(c, guard.wrongAddress(c)));
  app.onError((error, c) => problemResponse(c, error));

  return app;
}
