import { and, eq, lt, type SQL, sql } from "drizzle-orm";
import type { Database, HttpDb, TxDb } from "../../db/client";
import { isDatabaseUnavailable, postgresError } from "../../db/errors";
import { type RawStatement, rawBatch, rawQuery, renderedOnce } from "../../db/raw-batch";
import { idempotencyKeys } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import {
  AppError,
  type ErrorCode,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
} from "../../lib/errors";

/** Completed responses are replayable for this long (decisions.md: at least 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface IdempotencyScope {
  wineryId: string;
  route: string;
  key: string;
}

/** JSON with object keys sorted at every depth, so equal payloads hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function requestHash(payload: unknown): Promise<string> {
  return sha256Hex(canonicalJson(payload));
}

/** The slice of Workers KV that replay caching needs (the `IDEMPOTENCY` namespace). */
export interface ReplayCache {
  get(key: string, type: "json"): Promise<unknown>;
  put(key: string, value: string, options: { expirationTtl: number }): Promise<void>;
}

/**
 * A finished request's result: the JSON text of the value its operation returned (`body`), or the
 * problem it ended with while executing (`error`: storedProblem's text), one of the two.
 */
export type StoredResult =
  | { body: string; error?: undefined }
  | { error: string; body?: undefined };

/** A finished request's result in the replay cache, with the payload's fingerprint. */
type CachedEntry = { requestHash: string } & StoredResult;

async function cacheKey(scope: IdempotencyScope): Promise<string> {
  return `idem:${scope.wineryId}:${scope.route}:${await sha256Hex(scope.key)}`;
}

/**
 * The fast path: a completed response cached in KV. KV is eventually consistent and cannot claim,
 * so a miss proves nothing; Postgres decides (see claimIdempotencyKey).
 */
export async function replayFromCache(
  kv: ReplayCache,
  scope: IdempotencyScope,
  hash: string,
): Promise<StoredResult | undefined> {
  let cached: CachedEntry | null;
  try {
    // Inside the try: a binding may throw as well as reject.
    cached = (await kv.get(await cacheKey(scope), "json")) as CachedEntry | null;
  } catch (error) {
    // The cache is an optimisation: when KV fails, Postgres still decides (claimIdempotencyKey).
    logCacheFailure("get", error);
    return undefined;
  }
  if (!cached) return undefined;
  if (cached.requestHash !== hash) throw new IdempotencyKeyReusedError();
  return typeof cached.error === "string" ? { error: cached.error } : { body: cached.body };
}

export async function cacheResponse(
  kv: ReplayCache,
  scope: IdempotencyScope,
  hash: string,
  result: StoredResult,
): Promise<void> {
  const entry: CachedEntry = { requestHash: hash, ...result };
  try {
    await kv.put(await cacheKey(scope), JSON.stringify(entry), {
      expirationTtl: IDEMPOTENCY_TTL_SECONDS,
    });
  } catch (error) {
    // The result is in Postgres already; a later replay reads it from there.
    logCacheFailure("put", error);
  }
}

/** One warning line per failed cache access: the request itself goes on without the cache. */
function logCacheFailure(operation: "get" | "put", error: unknown): void {
  console.warn(
    JSON.stringify({
      level: "warn",
      event: "idempotency-cache-unavailable",
      operation,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    }),
  );
}

/**
 * The CTE `lock`: whether this transaction took the key's advisory lock (tried, never waited on),
 * which every claim of the key takes and holds until its transaction ends. Its key is
 * "winery:route:key", joined in SQL: every value stays a parameter, so the one-request path
 * renders this text once per isolate (renderedOnce).
 */
function tryKeyLock({ wineryId, route, key }: ScopeValues): SQL {
  return sql`lock as materialized (
      select pg_try_advisory_xact_lock(
        hashtextextended(${wineryId}::text || ':' || ${route}::text || ':' || ${key}::text, 0)
      ) as locked
    )`;
}

/**
 * The claim, as two CTEs (`lock`: whether this transaction took the key's advisory lock, tried and
 * never waited on; `claim`: one row when the key is now this transaction's, inserted or taken over
 * from an expired record), shared by claimIdempotencyKey and the one-request path's guard.
 */
function lockAndClaim(scope: ScopeValues, hash: unknown): SQL {
  const { wineryId, route, key } = scope;
  return sql`${tryKeyLock(scope)},
    claim as (
      insert into idempotency_keys (winery_id, route, key, request_hash, expires_at)
      select ${wineryId}, ${route}, ${key}, ${hash}, now() + make_interval(secs => ${IDEMPOTENCY_TTL_SECONDS})
      from lock where lock.locked
      on conflict (winery_id, route, key) do update
        set request_hash = excluded.request_hash, response_body = null, response_error = null,
            created_at = now(), expires_at = excluded.expires_at
        where idempotency_keys.expires_at < now()
      returning 1
    )`;
}

/**
 * Claims the key inside the caller's transaction. A concurrent holder of the same key makes this
 * fail at once with IDEMPOTENCY_KEY_IN_USE (a transaction-scoped advisory lock, tried, never
 * waited on); an earlier finished request with the same payload is returned for replay (its result
 * or its kept problem, as JSON text); a different payload is IDEMPOTENCY_KEY_REUSED. Because the
 * claim row commits or rolls back with the write, an attempt that fails (other than with a kept
 * problem: runInTransaction) leaves the key free for a retry.
 *
 * A payload is compared only with a finished request's. The statement's snapshot is taken before
 * the lock is tried, so a holder that commits in between is invisible to the read yet blocks the
 * claim: that key is "claimed, not yet finished" from here, which is 409, never 422.
 */
export async function claimIdempotencyKey(
  tx: TxDb,
  scope: IdempotencyScope,
  hash: string,
): Promise<StoredResult | undefined> {
  const { wineryId, route, key } = scope;
  // One statement (one round trip): try the lock; if held, claim the key (taking over an expired
  // record); and read the record as it stood before this statement, for the replay.
  const result = await tx.execute<{
    locked: boolean;
    claimed: boolean;
    request_hash: string | null;
    response_body: string | null;
    response_error: string | null;
  }>(sql`
    with ${lockAndClaim(scope, hash)}
    select lock.locked, exists (select 1 from claim) as claimed,
      existing.request_hash, existing.response_body, existing.response_error
    from lock
    left join idempotency_keys existing
      on existing.winery_id = ${wineryId} and existing.route = ${route} and existing.key = ${key}`);
  const row = result.rows[0];
  if (!row?.locked) throw new IdempotencyKeyInUseError();
  if (row.claimed) return undefined;
  // Not claimed, so another request holds or just finished the key; unseen or unfinished is 409.
  const finished = finishedResult(row);
  if (row.request_hash === null || finished === undefined) throw new IdempotencyKeyInUseError();
  if (row.request_hash !== hash) throw new IdempotencyKeyReusedError();
  return finished;
}

/** A key record's kept result (its answer, or its kept problem); undefined while unfinished. */
function finishedResult(row: {
  response_body: string | null;
  response_error: string | null;
}): StoredResult | undefined {
  if (row.response_body !== null) return { body: row.response_body };
  if (row.response_error !== null) return { error: row.response_error };
  return undefined;
}

export async function completeIdempotencyKey(
  tx: TxDb,
  scope: IdempotencyScope,
  result: StoredResult,
): Promise<void> {
  await tx
    .update(idempotencyKeys)
    .set({ responseBody: result.body ?? null, responseError: result.error ?? null })
    .where(
      and(
        eq(idempotencyKeys.wineryId, scope.wineryId),
        eq(idempotencyKeys.route, scope.route),
        eq(idempotencyKeys.key, scope.key),
      ),
    );
}

/** Cron: forget records past their retention; answers how many were deleted. */
export async function purgeExpiredIdempotencyKeys(db: HttpDb): Promise<number> {
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, sql`now()`))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}

/** What an idempotent operation needs beyond the database: the key and the replay cache. */
export interface IdempotencyOptions {
  /** The Idempotency-Key header, already parsed by the route schema. */
  key: string;
  /** What makes two requests "the same": fingerprinted as canonical JSON. */
  payload: unknown;
  /** The `IDEMPOTENCY` KV namespace. */
  cache: ReplayCache;
  /** Lets the cache write finish after the answer (executionCtx.waitUntil). */
  waitUntil: (promise: Promise<unknown>) => void;
}

export interface IdempotentResult<T> {
  value: T;
  /** True when `value` is a finished request's result, returned again without executing. */
  replayed: boolean;
}

/**
 * The problem an operation ended with, as the JSON text the key keeps (decisions.md: the first
 * response again, status and body): its own refusals, decided once it ran (E1's DUPLICATE_ORDER
 * or unknown channel, E14's NOT_FOUND or NOT_REFUNDABLE). Undefined for a failure of the service
 * (5xx: a retry may pass). What is decided before the operation runs never reaches here: the key's
 * own conflicts come from the claim, and a body that fails its schema, 401, 403 and 429 from the
 * route, so the same key may come back corrected.
 */
export function storedProblem(error: unknown): string | undefined {
  if (!(error instanceof AppError) || error.status >= 500) return undefined;
  return JSON.stringify({ code: error.code, message: error.message, options: error.options });
}

/** A kept problem's text (storedProblem) as the error it was: the same code, detail and options. */
function keptProblem(text: string): AppError {
  const { code, message, options } = JSON.parse(text) as {
    code: ErrorCode;
    message: string;
    options: AppError["options"];
  };
  return new AppError(code, message, options);
}

/**
 * A kept problem, answered again: the same code, detail, field errors and members, marked as a
 * replay (its requestId is the replaying request's, as its X-Request-Id is: decisions.md).
 */
export class ReplayedProblemError extends AppError {}

function replayedProblem(text: string): ReplayedProblemError {
  const { code, message, options } = keptProblem(text);
  return new ReplayedProblemError(code, message, {
    ...options,
    headers: { ...options.headers, "Idempotent-Replayed": "true" },
  });
}

/**
 * Runs `execute` once per (winery, route, key): a replay from KV when cached (one KV read), else
 * one transaction that claims the key, executes, and stores the result with the write. A replay is
 * the first result's JSON text parsed back, so it serialises to the same bytes; a kept problem
 * (storedProblem) is thrown again as a ReplayedProblemError.
 */
export async function runIdempotently<T>(
  db: Database,
  scope: IdempotencyScope,
  options: IdempotencyOptions,
  execute: (tx: TxDb) => Promise<T>,
): Promise<IdempotentResult<T>> {
  const hash = await requestHash(options.payload);
  const cached = await replayFromCache(options.cache, scope, hash);
  if (cached !== undefined) return replay(cached);
  return runInTransaction(db, scope, hash, options, execute);
}

function replay<T>(result: StoredResult): IdempotentResult<T> {
  if (result.error !== undefined) throw replayedProblem(result.error);
  return { value: JSON.parse(result.body) as T, replayed: true };
}

/**
 * The transaction of runIdempotently: claim, execute, keep the result. `execute` runs under a
 * savepoint, so that a problem it ends with (storedProblem) undoes its writes only: the claim and
 * the kept problem commit, and the problem is thrown to answer this request.
 */
async function runInTransaction<T>(
  db: Database,
  scope: IdempotencyScope,
  hash: string,
  options: IdempotencyOptions,
  execute: (tx: TxDb) => Promise<T>,
): Promise<IdempotentResult<T>> {
  const outcome = await db.transaction(async (tx) => {
    const previous = await claimIdempotencyKey(tx, scope, hash);
    if (previous !== undefined) return { result: previous, replayed: true };
    let value: T;
    try {
      value = await tx.transaction((savepoint) => execute(savepoint));
    } catch (error) {
      const problem = storedProblem(error);
      if (problem === undefined) throw error;
      const kept: StoredResult = { error: problem };
      await completeIdempotencyKey(tx, scope, kept);
      return { result: kept, replayed: false, thrown: error };
    }
    const result: StoredResult = { body: JSON.stringify(value) };
    await completeIdempotencyKey(tx, scope, result);
    return { result, replayed: false };
  });
  options.waitUntil(cacheResponse(options.cache, scope, hash, outcome.result));
  if (outcome.thrown !== undefined) throw outcome.thrown;
  if (outcome.replayed) return replay<T>(outcome.result);
  return { value: JSON.parse(outcome.result.body ?? "null") as T, replayed: false };
}

/** The key's values as the one-request path's statements bind them (see storedAnswerOnce). */
const IDEMPOTENCY_PARAMS = [
  "idempotencyWineryId",
  "idempotencyRoute",
  "idempotencyKey",
  "idempotencyHash",
] as const;
type IdempotencyParams = Record<(typeof IDEMPOTENCY_PARAMS)[number], unknown>;

/** A scope's values: strings, or renderedOnce's parameter markers. */
interface ScopeValues {
  wineryId: unknown;
  route: unknown;
  key: unknown;
}

const scopeOf = (p: IdempotencyParams): ScopeValues => ({
  wineryId: p.idempotencyWineryId,
  route: p.idempotencyRoute,
  key: p.idempotencyKey,
});

const renderedClaim = renderedOnce(IDEMPOTENCY_PARAMS, (m) =>
  claimOrFail(scopeOf(m), m.idempotencyHash),
);

/**
 * The statement that stores an operation's answer as the key's result and returns it, of fixed
 * text rendered once per isolate (build it at module level, once per operation): `answer` is a
 * query of one row and one json column, the operation's answer as it is once its statements have
 * run (they are visible to it: same transaction), over the operation's parameters `names`.
 *
 * `refusal`, for an operation whose refusals its statements decide without failing (E14's
 * NOT_REFUNDABLE and 404, E1's DUPLICATE_ORDER): a query of one row and one text column, evaluated only when the answer
 * is null, that is the refusal's kept problem (storedProblem's text, which the caller passes in as
 * parameters, so the words stay the TypeScript error's); the key keeps it as a refused request
 * keeps its problem in the transaction path. Null there too fails the batch.
 */
export function storedAnswerOnce<const N extends string>(
  names: readonly N[],
  answer: (markers: Record<N, string>) => SQL,
  refusal?: (markers: Record<N, string>) => SQL,
): (values: Record<N, unknown> & IdempotencyParams) => RawStatement {
  return renderedOnce([...names, ...IDEMPOTENCY_PARAMS], (m) =>
    storeAnswer(scopeOf(m), answer(m), refusal?.(m)),
  );
}

/** What runIdempotentlyInOneRequest writes: statements that need no result of each other. */
export interface OneRequestWrite {
  /** The operation's statements, of fixed text (renderedOnce), in order. */
  statements: readonly RawStatement[];
  /** The key's result: storedAnswerOnce's statement, given the key's values. */
  storedAnswer: (key: IdempotencyParams) => RawStatement;
}

/**
 * runIdempotently in ONE Neon HTTP batch (one round trip, one transaction) instead of a WebSocket
 * session, for operations whose statements need no result of each other and whose answer
 * Postgres can build: [claim the key or fail, the operation's statements, store the answer as the
 * key's result and return it]. Claim, write and stored result commit together, or nothing does, as
 * in the transaction. A key that cannot be claimed (in flight, finished earlier, reused with
 * another payload) fails the first statement; that and any other refusal of Postgres (a unique
 * key, a foreign key) makes the batch write nothing, and runIdempotently's transaction then
 * answers as it always has (replay, 409, 422, or the operation's own error), so the batch never
 * needs to tell those apart. An operation whose statements decide its own refusals without failing
 * keeps the refusal's problem with the claim in the same batch (storedAnswerOnce's `refusal`).
 * A database that cannot be reached is not retried: the batch may have committed, and the
 * client's retry with the same key is what finds out.
 */
export async function runIdempotentlyInOneRequest<T>(
  db: Database,
  scope: IdempotencyScope,
  options: IdempotencyOptions,
  write: OneRequestWrite,
  execute: (tx: TxDb) => Promise<T>,
): Promise<IdempotentResult<T>> {
  const hash = await requestHash(options.payload);
  const cached = await replayFromCache(options.cache, scope, hash);
  if (cached !== undefined) return replay(cached);

  const key: IdempotencyParams = {
    idempotencyWineryId: scope.wineryId,
    idempotencyRoute: scope.route,
    idempotencyKey: scope.key,
    idempotencyHash: hash,
  };
  let results: Record<string, unknown>[][];
  try {
    // Fixed text throughout (rendered once per isolate): nothing is rendered per call.
    results = await rawBatch(db.http, [
      renderedClaim(key),
      ...write.statements,
      write.storedAnswer(key),
    ]);
  } catch (error) {
    const failure = postgresError(error);
    if (failure && !isDatabaseUnavailable(error)) {
      if (UNCLAIMED.test(failure.message ?? "")) {
        const settled = await settledKey(db.http, key, hash);
        if (settled !== undefined) {
          options.waitUntil(cacheResponse(options.cache, scope, hash, settled));
          return replay(settled);
        }
      }
      return runInTransaction(db, scope, hash, options, execute);
    }
    throw error;
  }
  const stored = results.at(-1)?.[0];
  if (typeof stored?.error === "string") {
    // A refusal the batch kept with the key (storedAnswerOnce's `refusal`): answered as the
    // transaction path answers the problem it keeps, not as a replay.
    options.waitUntil(cacheResponse(options.cache, scope, hash, { error: stored.error }));
    throw keptProblem(stored.error);
  }
  const body = stored?.body;
  if (typeof body !== "string") throw new Error("idempotent batch stored no answer");
  options.waitUntil(cacheResponse(options.cache, scope, hash, { body }));
  return { value: JSON.parse(body) as T, replayed: false };
}

/** The failure of a one-request batch whose claim did (claimOrFail). */
const UNCLAIMED = /Idempotency batch: key not claimed/;

/** The key's record and whether its advisory lock is free, without claiming it (settledKey). */
const renderedKeyState = renderedOnce(IDEMPOTENCY_PARAMS, (m) => {
  const scope = scopeOf(m);
  return sql`
    with ${tryKeyLock(scope)}
    select lock.locked, k.request_hash, k.response_body, k.response_error,
      k.expires_at >= now() as live
    from lock
    left join idempotency_keys k
      on k.winery_id = ${scope.wineryId} and k.route = ${scope.route} and k.key = ${scope.key}`;
});

/**
 * Why a one-request batch could not claim its key, read in ONE statement over HTTP instead of the
 * transaction path's WebSocket session (a retry storm's duplicates and its retries that miss the
 * KV cache all come here): a finished record (committed rows are finished: the claim commits with
 * its result) is answered as claimIdempotencyKey answers it, replayed for the same payload, 422
 * for another; a key whose advisory lock another transaction holds is in flight, 409. It never
 * claims: over HTTP a claim would commit alone, with no write behind it. Anything else (the key is
 * free again: its holder rolled back, or its record expired) is undefined, for the transaction
 * path, which claims and executes.
 */
async function settledKey(
  db: HttpDb,
  key: IdempotencyParams,
  hash: string,
): Promise<StoredResult | undefined> {
  const [row] = (await rawQuery(db, ...renderedKeyState(key))) as {
    locked: boolean;
    request_hash: string | null;
    response_body: string | null;
    response_error: string | null;
    live: boolean | null;
  }[];
  if (!row) return undefined;
  const finished = finishedResult(row);
  if (row.live && finished !== undefined) {
    if (row.request_hash !== hash) throw new IdempotencyKeyReusedError();
    return finished;
  }
  if (!row.locked) throw new IdempotencyKeyInUseError();
  return undefined;
}

/**
 * Fails the statement unless this transaction now holds the key: the error (a cast of the
 * problem's text to int, evaluated per row at run time from a materialized CTE, so the planner
 * cannot fold it) aborts the batch's transaction.
 */
function claimOrFail(scope: ScopeValues, hash: unknown): SQL {
  return sql`
    with ${lockAndClaim(scope, hash)},
    problems as materialized (
      select 'key not claimed' as problem where not exists (select 1 from claim)
    )
    select cast('Idempotency batch: ' || problem as int) from problems`;
}

/**
 * Stores the answer's json text as the key's result and returns it (`body`); without an answer,
 * the refusal's problem text (`error`), kept the same way; with neither, the batch fails.
 */
function storeAnswer(scope: ScopeValues, answer: SQL, refusal: SQL = sql`select null`): SQL {
  const { wineryId, route, key } = scope;
  return sql`
    with doc as materialized (select (${answer})::text as body),
    kept as materialized (
      select case when doc.body is null then (${refusal})::text end as error from doc
    ),
    problems as materialized (
      select 'no answer' as problem from doc, kept where doc.body is null and kept.error is null
    ),
    stored as (
      update idempotency_keys
        set response_body = (select body from doc), response_error = (select error from kept)
      where winery_id = ${wineryId} and route = ${route} and key = ${key}
      returning response_body, response_error
    )
    select (select response_body from stored) as body, (select response_error from stored) as error,
      (select cast('Idempotency batch: ' || problem as int) from problems) as failed`;
}
