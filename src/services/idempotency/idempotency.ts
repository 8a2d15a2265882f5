import { and, eq, lt, sql } from "drizzle-orm";
import type { Database, HttpDb, TxDb } from "../../db/client";
import { idempotencyKeys } from "../../db/schema";
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  ValidationError,
} from "../../lib/errors";

/** Completed responses are replayable for this long (decisions.md: at least 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface IdempotencyScope {
  wineryId: string;
  route: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  body: string;
}

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

/** The Idempotency-Key header: 1..255 printable characters; the draft's quoted form is accepted. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const unquoted = /^"(.*)"$/.exec(header)?.[1] ?? header;
  if (!PRINTABLE.test(unquoted)) {
    throw new ValidationError([
      { path: "header.Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" },
    ]);
  }
  return unquoted;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
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

interface CachedEntry {
  requestHash: string;
  response: StoredResponse;
}

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
): Promise<StoredResponse | undefined> {
  // The cache is an optimisation: when KV fails, Postgres still decides.
  const cached = (await kv
    .get(await cacheKey(scope), "json")
    .catch(() => null)) as CachedEntry | null;
  if (!cached) return undefined;
  if (cached.requestHash !== hash) throw new IdempotencyKeyReusedError();
  return cached.response;
}

export async function cacheResponse(
  kv: ReplayCache,
  scope: IdempotencyScope,
  hash: string,
  response: StoredResponse,
): Promise<void> {
  const entry: CachedEntry = { requestHash: hash, response };
  await kv
    .put(await cacheKey(scope), JSON.stringify(entry), { expirationTtl: IDEMPOTENCY_TTL_SECONDS })
    .catch(() => {});
}

/**
 * Claims the key inside the caller's transaction. A concurrent holder of the same key makes this
 * fail at once with IDEMPOTENCY_KEY_IN_USE (a transaction-scoped advisory lock, tried, never
 * waited on); an earlier completed request with the same payload is returned for replay; a
 * different payload is IDEMPOTENCY_KEY_REUSED. Because the claim row commits or rolls back with the
 * write, a failed attempt leaves the key free for a retry.
 */
export async function claimIdempotencyKey(
  tx: TxDb,
  scope: IdempotencyScope,
  hash: string,
): Promise<StoredResponse | undefined> {
  const { wineryId, route, key } = scope;
  const lockKey = `${wineryId}:${route}:${key}`;
  // One statement (one round trip): try the lock; if held, claim the key (taking over an expired
  // record); and read the record as it stood before this statement, for the replay.
  const result = await tx.execute<{
    locked: boolean;
    claimed: boolean;
    request_hash: string | null;
    response_status: number | null;
    response_body: string | null;
  }>(sql`
    with lock as (select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as locked),
    claim as (
      insert into idempotency_keys (winery_id, route, key, request_hash, expires_at)
      select ${wineryId}, ${route}, ${key}, ${hash}, now() + make_interval(secs => ${IDEMPOTENCY_TTL_SECONDS})
      from lock where lock.locked
      on conflict (winery_id, route, key) do update
        set request_hash = excluded.request_hash, response_status = null, response_body = null,
            created_at = now(), expires_at = excluded.expires_at
        where idempotency_keys.expires_at < now()
      returning 1
    )
    select lock.locked, exists (select 1 from claim) as claimed,
      existing.request_hash, existing.response_status, existing.response_body
    from lock
    left join idempotency_keys existing
      on existing.winery_id = ${wineryId} and existing.route = ${route} and existing.key = ${key}`);
  const row = result.rows[0];
  if (!row?.locked) throw new IdempotencyKeyInUseError();
  if (row.claimed) return undefined;
  if (row.request_hash !== hash) throw new IdempotencyKeyReusedError();
  if (row.response_status === null || row.response_body === null) {
    throw new IdempotencyKeyInUseError();
  }
  return { status: row.response_status, body: row.response_body };
}

export async function completeIdempotencyKey(
  tx: TxDb,
  scope: IdempotencyScope,
  response: StoredResponse,
): Promise<void> {
  await tx
    .update(idempotencyKeys)
    .set({ responseStatus: response.status, responseBody: response.body })
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

export interface IdempotencyDeps {
  db: Database;
  kv: ReplayCache;
  waitUntil: (promise: Promise<unknown>) => void;
}

export interface IdempotentResult {
  response: StoredResponse;
  replayed: boolean;
}

/**
 * Runs `execute` once per (winery, route, key): a replay from KV when cached (one KV read), else
 * one transaction that claims the key, executes, and stores the response with the write. The
 * payload is fingerprinted as canonical JSON, so key order and whitespace do not matter.
 */
export async function runIdempotently(
  deps: IdempotencyDeps,
  scope: IdempotencyScope,
  payload: unknown,
  execute: (tx: TxDb) => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  const hash = await requestHash(payload);
  const cached = await replayFromCache(deps.kv, scope, hash);
  if (cached) return { response: cached, replayed: true };

  const result = await deps.db.transaction(async (tx): Promise<IdempotentResult> => {
    const previous = await claimIdempotencyKey(tx, scope, hash);
    if (previous) return { response: previous, replayed: true };
    const response = await execute(tx);
    await completeIdempotencyKey(tx, scope, response);
    return { response, replayed: false };
  });
  deps.waitUntil(cacheResponse(deps.kv, scope, hash, result.response));
  return result;
}
