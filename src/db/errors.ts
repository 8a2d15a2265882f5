/**
 * Classifies errors raised below Drizzle (Neon HTTP driver, Neon WebSocket pool, Postgres itself).
 * Drizzle wraps driver errors (DrizzleQueryError, with the SQL and its parameters in the message),
 * so every check walks the `cause` chain and nothing of these messages ever reaches a client.
 */

interface PgLikeError {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  sourceError?: unknown;
  constraint?: unknown;
  column?: unknown;
  detail?: unknown;
}

function* causes(error: unknown): Generator<PgLikeError> {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 8; depth++) {
    yield current as PgLikeError;
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * A database that accepted the request or the session but did not answer in time (see
 * QUERY_TIMEOUT_MS in client.ts): nothing it was asked in that call is known to have happened.
 */
export class DatabaseTimeoutError extends Error {
  override name = "DatabaseTimeoutError";
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms.`);
  }
}

/**
 * A query waited and the database then did not answer a liveness probe either (see watchLiveness
 * in client.ts): it is treated as unavailable, like one that timed out.
 */
export class DatabaseUnresponsiveError extends DatabaseTimeoutError {
  override name = "DatabaseUnresponsiveError";
  constructor(probeTimeoutMs: number) {
    super(0);
    this.message = `The database did not answer a liveness check (select 1) within ${probeTimeoutMs} ms.`;
  }
}

/** SQLSTATE classes and codes that mean "the database is not there right now". */
const UNAVAILABLE_CODES = new Set(["57P01", "57P02", "57P03", "53300", "53400"]);

const UNAVAILABLE_MESSAGES = [
  /^Error connecting to database/i, // neon-http: fetch to the SQL endpoint failed
  /^Server error \(HTTP status 5\d\d\)/i, // neon-http: the endpoint itself is down
  /Connection terminated/i,
  // pg, on a query (e.g. drizzle's ROLLBACK) after the session's connection broke mid-transaction
  /is not queryable/i,
  /Network connection lost/i,
  /WebSocket/i,
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH/,
  /connection (?:timeout|timed out|refused|closed)/i,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    // Ours, or the TimeoutError DOMException of the SQL-over-HTTP fetch's AbortSignal.timeout
    // when it fires while the answer's body is read (before that, the driver wraps it as
    // "Error connecting to database: TimeoutError: ...").
    if (e instanceof DatabaseTimeoutError || e.name === "TimeoutError") return true;
    if (typeof e.code === "string" && (e.code.startsWith("08") || UNAVAILABLE_CODES.has(e.code))) {
      return true;
    }
    if (
      typeof e.message === "string" &&
      UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string))
    ) {
      return true;
    }
  }
  return false;
}

/** The Postgres error (with its SQLSTATE) inside a Drizzle/driver error, if there is one. */
export function postgresError(
  error: unknown,
):
  | { code: string; constraint?: string; column?: string; detail?: string; message?: string }
  | undefined {
  for (const e of causes(error)) {
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) {
      return {
        code: e.code,
        constraint: typeof e.constraint === "string" ? e.constraint : undefined,
        column: typeof e.column === "string" ? e.column : undefined,
        detail: typeof e.detail === "string" ? e.detail : undefined,
        message: typeof e.message === "string" ? e.message : undefined,
      };
    }
  }
  return undefined;
}

/**
 * Postgres aborted the transaction to break a cycle of lock waits (40P01 deadlock_detected), or a
 * serializable one could not be ordered (40001). The transaction was rolled back whole, so running
 * it again writes nothing twice (retryOnDeadlock); one that keeps losing is 409 CONFLICT.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = postgresError(error)?.code;
  return code === "40P01" || code === "40001";
}
