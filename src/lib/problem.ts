import type { ZodError } from "zod";
import { isDatabaseUnavailable, isTransactionConflict, postgresError } from "../db/errors";
import {
  AppError,
  ERROR_STATUS,
  ERROR_TITLE,
  type ErrorCode,
  type FieldError,
  INTERNAL_ERROR_DETAIL,
  ServiceUnavailableError,
} from "./errors";

/** RFC 9457 problem details, as decisions.md shapes them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export interface ProblemResponse {
  status: number;
  body: Problem;
  headers: Record<string, string>;
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Where problem types are described: GET /api/problems/{slug} (src/routes/system/problems.routes.ts). */
export const PROBLEM_TYPE_BASE = "/api/problems/";

/** STALE_UPDATE <-> stale-update. */
export function problemSlug(code: ErrorCode): string {
  return code.toLowerCase().replaceAll("_", "-");
}

export function codeFromSlug(slug: string): ErrorCode | undefined {
  const code = slug.toUpperCase().replaceAll("-", "_");
  return Object.hasOwn(ERROR_STATUS, code) && problemSlug(code as ErrorCode) === slug
    ? (code as ErrorCode)
    : undefined;
}

/**
 * A problem's `type`: a relative reference (RFC 9457 §3.1.1) that resolves on the API itself, so it
 * holds whatever host the API is served from.
 */
export function problemType(code: ErrorCode): string {
  return `${PROBLEM_TYPE_BASE}${problemSlug(code)}`;
}

/** Field paths in the dotted form integrators read: `items[2].sku`, `dateFrom`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

export function fieldErrorsFromZod(error: ZodError) {
  return explainedIssues(error).map(({ path, message }) => ({
    // A problem with the whole body (not an object, say) names it, as the body middleware does.
    path: formatPath(path) || "body",
    message,
  }));
}

/**
 * Where a parameter that is not in the body comes from, as its field problems say it. Their path
 * is the parameter's bare name (`tagName`, `id`, `Idempotency-Key`), which is the name an
 * integrator looks for; the message ends with its place, so that `id` in the path is not taken
 * for `id` in the body.
 */
const PARAMETER_PLACE = {
  param: "path parameter",
  query: "query parameter",
  header: "header",
} as const;

export function parameterProblem(
  place: keyof typeof PARAMETER_PLACE,
  name: string,
  message: string,
): { path: string; message: string } {
  return { path: name, message: `${message} (${PARAMETER_PLACE[place]})` };
}

type Issue = ZodError["issues"][number];

/**
 * Zod's issues as a client can act on them, with their paths as arrays (for a refinement that
 * passes them on to its own context). A value that fits no option of a union ("Invalid input" as
 * Zod says it) is explained by the one option whose type it has (a LocalTime object with hour 25:
 * that object's `hour` and its range), by the types the options take ("must be object, string or
 * null"), or by what each option said; a missing member "is required".
 */
export function explainedIssues(error: ZodError): { path: PropertyKey[]; message: string }[] {
  return error.issues.flatMap((issue) => explained(issue, []));
}

/**
 * The types an option of a union expects when the value is of none of them (its one issue is a
 * wrong type at its root, or a union of such options); undefined when the value has its type.
 */
function typesExpected(branch: Issue[]): string[] | undefined {
  const [only] = branch;
  if (branch.length !== 1 || !only || only.path.length > 0) return undefined;
  if (only.code === "invalid_type") return [only.expected];
  if (only.code !== "invalid_union") return undefined;
  const nested = only.errors.map(typesExpected);
  return nested.every((t) => t !== undefined) ? nested.flat() : undefined;
}

const ZOD_DEFAULT_UNION_MESSAGE = "Invalid input";

function explained(
  issue: Issue,
  prefix: ReadonlyArray<PropertyKey>,
): { path: PropertyKey[]; message: string }[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const fitting = issue.errors.filter((branch) => typesExpected(branch) === undefined);
    if (fitting.length === 1) return (fitting[0] as Issue[]).flatMap((i) => explained(i, path));
    const types = [...new Set(issue.errors.flatMap((branch) => typesExpected(branch) ?? []))];
    if (fitting.length === 0 && types.length > 0) {
      const list =
        types.length === 1 ? types[0] : `${types.slice(0, -1).join(", ")} or ${types.at(-1)}`;
      return [{ path, message: `must be ${list}` }];
    }
    if (fitting.length > 1 && issue.message === ZOD_DEFAULT_UNION_MESSAGE) {
      // Several options of the value's type, each refusing it: what each one wanted.
      const said = fitting.flatMap((branch) => branch.flatMap((i) => explained(i, [])));
      const messages = [...new Set(said.map((i) => i.message))];
      return [{ path, message: `fits none of its forms: ${messages.join("; or ")}` }];
    }
  }
  if (issue.code === "invalid_type" && issue.expected === "nonoptional") {
    return [{ path, message: "is required" }];
  }
  return [{ path, message: issue.message }];
}

/**
 * Maps anything thrown while serving a request to its problem. Unknown errors become
 * INTERNAL_ERROR with the fixed detail; their message and stack are never sent.
 */
export function toProblem(error: unknown, requestId: string): ProblemResponse {
  const appError = classify(error);
  const { code, message, options } = appError;
  const body: Problem = {
    type: problemType(code),
    title: ERROR_TITLE[code],
    status: ERROR_STATUS[code],
    detail: message,
    code,
    requestId,
    ...options.extensions,
  };
  if (options.errors?.length) body.errors = options.errors;
  return {
    status: body.status,
    body,
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE, ...options.headers },
  };
}

function classify(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError();
  const pg = postgresError(error);
  // Constraint violations that slip past a service's own checks are still the caller's input.
  if (pg?.code === "23505")
    return new AppError("CONFLICT", "The request conflicts with an existing record.");
  // A deadlock or serialization failure that outlasted retryOnDeadlock: nothing was written.
  if (isTransactionConflict(error))
    return new AppError(
      "CONFLICT",
      "The request kept colliding with concurrent changes to the same records; nothing was written. Retry it.",
    );
  if (
    pg &&
    (pg.code === "22P02" || pg.code === "22003" || pg.code === "22007" || pg.code === "22008")
  ) {
    return new AppError("VALIDATION_ERROR", "A value is out of range or malformed.");
  }
  return new AppError("INTERNAL_ERROR", INTERNAL_ERROR_DETAIL);
}

/**
 * What the logs keep of an unexpected error: names, SQLSTATE and the driver's own message. Drizzle's
 * "Failed query" wrapper is skipped because it carries the SQL parameters (customer data).
 */
export function describeError(
  error: unknown,
  options: { stack?: boolean } = {},
): Record<string, unknown> {
  const chain: Record<string, unknown>[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    if (!(current instanceof Error)) {
      chain.push({ value: String(current) });
      break;
    }
    const code = (current as { code?: unknown }).code;
    const wrapper = current.message.startsWith("Failed query:");
    chain.push({
      name: current.name,
      ...(typeof code === "string" && { code }),
      ...(!wrapper && { message: current.message }),
      ...(depth === 0 && !wrapper && options.stack !== false && { stack: current.stack }),
    });
    current = current.cause;
  }
  return { chain };
}
