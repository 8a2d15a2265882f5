import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isDatabaseUnavailable } from "../../src/db/errors";
import {
  AppError,
  ERROR_STATUS,
  type ErrorCode,
  INTERNAL_ERROR_DETAIL,
  NotFoundError,
} from "../../src/lib/errors";
import {
  codeFromSlug,
  fieldErrorsFromZod,
  formatPath,
  parameterProblem,
  problemSlug,
  problemType,
  toProblem,
} from "../../src/lib/problem";

/** Mimics Drizzle's wrapping: the driver error is the `cause` of a query error. */
function wrapped(cause: Record<string, unknown>) {
  return Object.assign(
    new Error("Failed query: insert into secret_table values ($1) params: s3cret"),
    { cause },
  );
}

describe("toProblem", () => {
  it("keeps a domain error's code, status, detail and extensions", () => {
    const stale = new AppError("STALE_UPDATE", "The order was modified concurrently.", {
      extensions: { currentUpdatedAt: "2026-01-01T00:00:00.000Z" },
    });
    const problem = toProblem(stale, "req-1");
    expect(problem.status).toBe(409);
    expect(problem.body).toMatchObject({
      type: "/api/problems/stale-update",
      code: "STALE_UPDATE",
      status: 409,
      title: "Stale update",
      requestId: "req-1",
      currentUpdatedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(problem.headers["Content-Type"]).toBe("application/problem+json");
  });

  it("maps NotFoundError to 404", () => {
    expect(toProblem(new NotFoundError("Order", 7), "r").body).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      detail: "Order 7 not found.",
    });
  });

  it.each([
    [
      "neon-http fetch failure",
      { message: "Error connecting to database: TypeError: fetch failed" },
    ],
    ["endpoint down", { message: "Server error (HTTP status 502): bad gateway" }],
    ["connection failure SQLSTATE", { message: "connection refused", code: "08006" }],
    ["admin shutdown", { message: "terminating connection", code: "57P01" }],
    ["websocket lost", { message: "Network connection lost." }],
    [
      "a query on a session whose connection broke (e.g. the ROLLBACK)",
      { message: "Client has encountered a connection error and is not queryable" },
    ],
  ])("maps %s to 503 with Retry-After", (_, cause) => {
    const problem = toProblem(wrapped(cause), "r");
    expect(problem.status).toBe(503);
    expect(problem.body.code).toBe("SERVICE_UNAVAILABLE");
    expect(Number(problem.headers["Retry-After"])).toBeGreaterThan(0);
  });

  it("maps a unique violation that escaped a service to CONFLICT", () => {
    expect(toProblem(wrapped({ message: "duplicate key", code: "23505" }), "r").body.code).toBe(
      "CONFLICT",
    );
  });

  it.each([
    ["a deadlock", "40P01"],
    ["a serialization failure", "40001"],
  ])("maps %s that outlasted its retries to 409 CONFLICT, never a 500", (_, code) => {
    const problem = toProblem(wrapped({ message: "deadlock detected", code }), "r");
    expect(problem.status).toBe(409);
    expect(problem.body.code).toBe("CONFLICT");
    expect(problem.body.detail).toMatch(/nothing was written/);
  });

  it("hides everything of an unknown error behind INTERNAL_ERROR", () => {
    const problem = toProblem(wrapped({ message: "syntax error", code: "42601" }), "r");
    expect(problem.status).toBe(500);
    expect(problem.body.detail).toBe(INTERNAL_ERROR_DETAIL);
    expect(JSON.stringify(problem.body)).not.toMatch(/secret|stack|s3cret|syntax/);
  });

  it("is never fooled by a non-error value", () => {
    expect(toProblem("boom", "r").status).toBe(500);
    expect(toProblem(undefined, "r").status).toBe(500);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });

  it("reports zod issues with dotted field paths", () => {
    const schema = z.object({
      items: z.array(z.object({ sku: z.string() })),
      dateFrom: z.string(),
    });
    const result = schema.safeParse({ items: [{ sku: "a" }, { sku: 1 }] });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(fieldErrorsFromZod(result.error).map((e) => e.path)).toEqual([
        "items[1].sku",
        "dateFrom",
      ]);
    }
    // A parameter is named bare; its place is in the message.
    expect(parameterProblem("query", "dateFrom", "is required")).toEqual({
      path: "dateFrom",
      message: "is required (query parameter)",
    });
    expect(formatPath([])).toBe("");
    expect(new AppError("CONFLICT", "x").status).toBe(409);
  });

  it("explains a value that fits no option of a union by the option of its type", async () => {
    // E9's `time`: a LocalTime (object or "HH:MM" string) or null, a union inside a union.
    const { LocalTimeSchema } = await import("../../src/schemas/slots");
    const schema = z.object({
      requests: z.array(z.object({ time: LocalTimeSchema.or(z.null()) })),
    });
    const errorsOf = (time: unknown) => {
      const result = schema.safeParse({ requests: [{ time }] });
      return result.success ? [] : fieldErrorsFromZod(result.error);
    };
    expect(errorsOf({ hour: 25, minute: 0 })).toEqual([
      { path: "requests[0].time.hour", message: expect.stringContaining("23") },
    ]);
    expect(errorsOf("25:00")).toEqual([
      {
        path: "requests[0].time",
        message:
          "must be HH:MM or HH:MM:SS, hours 00-23, minutes and seconds 00-59 (a fraction only of zeros: slots start at whole seconds)",
      },
    ]);
    expect(errorsOf(7)).toEqual([
      { path: "requests[0].time", message: "must be object, string or null" },
    ]);
    expect(errorsOf({ hour: 9, minute: 30 })).toEqual([]);
  });

  it("explains the routes' own unions: E4's dates, E2's contact ids, E7's Timestamp", async () => {
    const { ReceiptQuerySchema } = await import("../../src/schemas/receipts");
    const { UpdateParamSchema } = await import("../../src/schemas/orders");
    const { TimestampInputSchema } = await import("../../src/schemas/customer-classes");
    const errorsOf = (schema: z.ZodType, value: unknown) => {
      const result = schema.safeParse(value);
      return result.success ? [] : fieldErrorsFromZod(result.error);
    };
    expect(errorsOf(ReceiptQuerySchema, { startDate: "2026-13-01" })).toEqual([
      {
        path: "startDate",
        message: "must be a date (2026-05-01) or a date-time with an offset (2026-05-01T10:00:00Z)",
      },
    ]);
    const contact = (contactId: unknown) => ({
      userMetadata: { secondaryContacts: [{ contactId, amountCents: 1 }] },
    });
    expect(errorsOf(UpdateParamSchema, contact({ a: 1 }))).toEqual([
      { path: "userMetadata.secondaryContacts[0].contactId", message: "must be number or string" },
    ]);
    expect(errorsOf(UpdateParamSchema, contact("1.5"))).toEqual([
      {
        path: "userMetadata.secondaryContacts[0].contactId",
        message: "must be a numeric contact id",
      },
    ]);
    expect(
      errorsOf(z.object({ validityDate: TimestampInputSchema }), { validityDate: { year: 127 } }),
    ).toEqual([{ path: "validityDate.time", message: "is required" }]);
  });

  it("says what each form wanted when several forms of a union take the value's type, and names a missing member", () => {
    const twoForms = z.object({
      at: z.union([z.string().regex(/^\d{4}$/, "must be a year"), z.email("must be an email")]),
      stamp: z.object({ time: z.number() }),
    });
    const result = twoForms.safeParse({ at: "nope", stamp: {} });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(fieldErrorsFromZod(result.error)).toEqual([
        { path: "at", message: "fits none of its forms: must be a year; or must be an email" },
        { path: "stamp.time", message: expect.any(String) },
      ]);
    }
    // A union with its own message keeps it.
    const own = z.union([z.string().regex(/^a$/), z.string().regex(/^b$/)], {
      error: "must be a or b",
    });
    const refused = own.safeParse("c");
    if (!refused.success)
      expect(fieldErrorsFromZod(refused.error)[0]?.message).toBe("must be a or b");
    expect(refused.success).toBe(false);
  });
});

describe("problem types", () => {
  it("are relative references on the API, one per code, that map back to their code", () => {
    const types = new Set<string>();
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
      const type = problemType(code);
      expect(type).toMatch(/^\/api\/problems\/[a-z]+(-[a-z]+)*$/);
      types.add(type);
      expect(codeFromSlug(problemSlug(code))).toBe(code);
    }
    expect(types.size).toBe(Object.keys(ERROR_STATUS).length);
    expect(problemType("IDEMPOTENCY_KEY_REUSED")).toBe("/api/problems/idempotency-key-reused");
  });

  it("know only the canonical slug of an existing code", () => {
    for (const slug of ["", "nope", "STALE-UPDATE", "stale_update", "constructor", "__proto__"]) {
      expect(codeFromSlug(slug), slug).toBeUndefined();
    }
  });
});
