import { Client, neon, neonConfig } from "@neondatabase/serverless";
import {
  createTableRelationsHelpers,
  type ExtractTablesWithRelations,
  extractTablesRelationalConfig,
  type RelationalSchemaConfig,
} from "drizzle-orm";
import { drizzle as drizzleHttp, type NeonHttpDatabase } from "drizzle-orm/neon-http";
import { NeonDatabase, NeonDriver } from "drizzle-orm/neon-serverless";
import { PgDialect } from "drizzle-orm/pg-core";
import { DatabaseTimeoutError, DatabaseUnresponsiveError } from "./errors";
import * as schema from "./schema";

export type Schema = typeof schema;
export type HttpDb = NeonHttpDatabase<Schema>;
export type TxDb = Parameters<Parameters<NeonDatabase<Schema>["transaction"]>[0]>[0];

export interface DatabaseConfig {
  DATABASE_URL: string;
  NEON_HTTP_ENDPOINT?: string;
  NEON_WS_PROXY?: string;
}

export interface Database {
  /** One HTTP round trip per query (or per `batch`, which is atomic). The default path. */
  http: HttpDb;
  /**
   * An interactive transaction over a WebSocket session, for the few writes that must branch on
   * what they read. The connection lives only for this call and is closed through `waitUntil`.
   */
  transaction<T>(work: (tx: TxDb) => Promise<T>): Promise<T>;
  /**
   * Reads in ONE snapshot of the database: `read` runs its statements in a `REPEATABLE READ READ
   * ONLY` transaction over a WebSocket session of its own (the deadlines and liveness checks of
   * `transaction`), which stays open while the caller iterates, so an answer streamed in several
   * statements is one state of the data whatever commits meanwhile. The session is opened at the
   * first `next()` (inside the request, as workerd wants: an I/O object serves only the request
   * that made it) and closed through `waitUntil` when the iteration ends, fails or is stopped early
   * (`return()`: a stream its client cancelled). Nothing is committed: a read-only transaction
   * ends with its session.
   */
  snapshot<T>(read: (query: SessionQuery) => AsyncIterable<T>): AsyncGenerator<T, void, undefined>;
}

/** One statement of fixed text with its `$1`, `$2` ... parameters, answering its rows as objects. */
export type SessionQuery = (
  text: string,
  parameters: unknown[],
) => Promise<Record<string, unknown>[]>;

/**
 * How long a transaction's WebSocket session may take to open (connection and start-up) before the
 * request gives up with 503 SERVICE_UNAVAILABLE: a database that is down but silent costs a caller
 * at most this, not the platform's own limits. A refused or cut connection fails at once anyway.
 * Neon's compute wakes from suspension well within it.
 */
export const CONNECT_TIMEOUT_MS = 2_000;

/**
 * How long one query may go unanswered before the request gives up with 503 SERVICE_UNAVAILABLE,
 * while the database keeps answering liveness checks (watchLiveness: a database that does not
 * answer `select 1` fails the request after ~1 s): each SQL-over-HTTP request (a query or a
 * `batch`, its answer's body included) and each query of a transaction's WebSocket session.
 * Nothing is half-written: an HTTP batch is one transaction, and a timed-out session's socket is
 * destroyed, so Postgres rolls its open transaction back. (A COMMIT whose answer is what got lost
 * may still have committed, as with any connection lost at that moment; Idempotency-Key covers
 * the retry.)
 *
 * Why this long: waiting is legitimate while the database works: a row lock held by a concurrent
 * write (E9 and experience saves lock the experience, a retried Idempotency-Key waits for the
 * first request's claim), a Neon compute waking from suspension. Under test/load's 50 concurrent
 * clients on this 2-CPU machine shared with other work (load average 8 to 15), single queries
 * waited up to ~15 s on such locks: a 2 s deadline turned 113 of its ~400 requests into 503s, a
 * 10 s one 17. 30 s keeps twice that margin and still bounds a query the database never finishes
 * well inside the platform's own limits.
 */
export const QUERY_TIMEOUT_MS = 30_000;

/**
 * How long a snapshot's transaction may sit idle between two of its statements: while the caller
 * does not ask for more (a client that stops reading a streamed body), the session keeps its
 * snapshot, which holds back vacuum, and the AccessShare locks of the tables it read, behind which
 * a schema change (and everything queued after it) would wait. Past this, Postgres ends the
 * session, and the caller's next read fails (a streamed body is cut off). The same bound as a
 * query's (QUERY_TIMEOUT_MS), set by the transaction itself, so it holds on Neon as locally (where
 * the relay gives every session 10 s, for clients lost without Postgres being told).
 */
export const SNAPSHOT_IDLE_TIMEOUT_MS = QUERY_TIMEOUT_MS;

/**
 * What the snapshot's transaction starts with, in one round trip (simple protocol, two
 * statements): one snapshot for all its statements, no writes, and its own idle bound.
 */
const SNAPSHOT_BEGIN = `begin isolation level repeatable read read only; set local idle_in_transaction_session_timeout = ${SNAPSHOT_IDLE_TIMEOUT_MS}`;

let configuredFor: string | undefined;

/**
 * Points Neon's driver at the local endpoints when they are configured (wrangler dev, tests);
 * on Cloudflare these bindings are absent and the driver talks to Neon itself.
 */
function configureNeon(config: DatabaseConfig) {
  const key = `${config.NEON_HTTP_ENDPOINT ?? ""}|${config.NEON_WS_PROXY ?? ""}`;
  if (configuredFor === key) return;
  configuredFor = key;
  neonConfig.fetchFunction = fetchWithDeadline;
  if (config.NEON_HTTP_ENDPOINT) neonConfig.fetchEndpoint = config.NEON_HTTP_ENDPOINT;
  if (config.NEON_WS_PROXY) {
    const proxy = config.NEON_WS_PROXY;
    neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
    // A plain local Postgres speaks neither TLS nor Neon's pipelined password start-up.
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
}

/**
 * The HTTP handle of the isolate's connection string. It holds no connection (each query is one
 * fetch, made when it runs), so one instance serves every request of the isolate; building it per
 * request cost a fifth of a simple read's Worker CPU, most of it drizzle deriving the relational
 * config of the whole schema (extractTablesRelationalConfig) again.
 */
let httpDb: { url: string; db: HttpDb } | undefined;

function httpDatabase(url: string): HttpDb {
  if (httpDb?.url !== url)
    httpDb = { url, db: drizzleHttp({ client: neon(url), schema, casing: "snake_case" }) };
  return httpDb.db;
}

/**
 * What drizzle's `drizzle({ client, schema })` builds, less the per-call part: the dialect and the
 * relational config are derived once per isolate, and a transaction only wraps its new client in
 * a session (the construction drizzle-orm/neon-serverless's own `drizzle()` performs).
 */
let relational:
  | { dialect: PgDialect; schema: RelationalSchemaConfig<ExtractTablesWithRelations<Schema>> }
  | undefined;

function transactionDatabase(client: Client): NeonDatabase<Schema> {
  if (!relational) {
    const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
    relational = {
      dialect: new PgDialect({ casing: "snake_case" }),
      schema: {
        fullSchema: schema,
        schema: tables.tables as ExtractTablesWithRelations<Schema>,
        tableNamesMap: tables.tableNamesMap,
      },
    };
  }
  const session = new NeonDriver(client, relational.dialect).createSession(relational.schema);
  return new NeonDatabase(relational.dialect, session, relational.schema);
}

/**
 * The SQL-over-HTTP fetch: aborted when its answer (headers and body) takes over QUERY_TIMEOUT_MS,
 * or as soon as the database fails a liveness check while the fetch waits (watchLiveness). A
 * liveness probe's own fetch is sent as it is.
 */
function fetchWithDeadline(
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
): Promise<Response> {
  if (init?.signal && probeSignals.has(init.signal)) return fetch(input, init).then(answered);
  const connectionString = (init?.headers as Record<string, string> | undefined)?.[
    "Neon-Connection-String"
  ];
  const stalled = new AbortController();
  const signal = AbortSignal.any([stalled.signal, AbortSignal.timeout(QUERY_TIMEOUT_MS)]);
  const pending = fetch(input, { ...init, signal }).then(answered);
  if (!connectionString) return pending;
  return watchLiveness(pending, connectionString, (error) => stalled.abort(error));
}

/** Notes a successful answer (HTTP 200: the database ran the query; an error is not counted). */
function answered(response: Response): Response {
  if (response.ok) lastAnswerAt = Date.now();
  return response;
}

/**
 * How long a query may wait before the database's liveness is checked (and then again every as
 * long while it still waits). See watchLiveness.
 *
 * With LIVENESS_PROBE_TIMEOUT_MS, a silent database is noticed after 1 s (was 0.5 s + 1 s):
 * decisions.md's 503 must reach the caller within 2 s, and under 200 concurrent requests on a
 * paused database (npm run dev, 2 CPUs) the last of them had sent its query only ~0.4 s after
 * they started, so 1.5 s of silence answered them at 1.93-2.14 s; now at 1.03-1.32 s.
 */
export const LIVENESS_CHECK_AFTER_MS = 300;
/** How long the liveness probe (`select 1` over SQL-over-HTTP) may take to be answered. */
export const LIVENESS_PROBE_TIMEOUT_MS = 700;
/**
 * The probe's text. The local SQL-over-HTTP endpoint recognises it (scripts/local-db) and counts it
 * apart from the route's round trips, as it does the API key lookup: a probe is sent only for a
 * query that waits, so it depends on the machine's load, not on the route.
 */
export const LIVENESS_PROBE_SQL = "select 1 /* liveness */";

/** Date.now() when this isolate last received an answer from the database (any query). */
let lastAnswerAt = 0;
/**
 * Date.now() when a liveness check last found the database silent. Until something is answered
 * after it, a new query is checked at once instead of after LIVENESS_CHECK_AFTER_MS: during an
 * outage the requests that keep arriving answer 503 within a probe's timeout, and the first answer
 * (the database is back) ends it.
 */
let silentAt: number | undefined;

/** When a query just sent should have the database's liveness checked (ms from now). */
function firstCheckAfter(): number {
  return silentAt !== undefined && lastAnswerAt <= silentAt ? 0 : LIVENESS_CHECK_AFTER_MS;
}
/** The signals of liveness probes: their fetches are not watched themselves. */
const probeSignals = new WeakSet<AbortSignal>();
/** One probe at a time per isolate; every waiting query shares its verdict. */
interface Probe {
  connectionString: string;
  startedAt: number;
  /**
   * The probe's own verdict once its fetch has settled: answered, or failed (then whether anything
   * else was answered meanwhile). A plain value that waiting queries read, never a promise they
   * await: the queries of other requests share the probe, and a promise of one request settled by
   * another's I/O is what workerd warns of ("resolved or rejected from a different request
   * context"; an outside load audit counted 352 in 180 s at 50 clients, when lock waits made
   * probes frequent), and cancels when the request that awaits it has ended.
   */
  verdict: boolean | undefined;
  /** Gives the probe's fetch up (a verdict of silence was reached without it). */
  abort(): void;
}
let probeInFlight: Probe | undefined;
let probeSql: { connectionString: string; sql: ReturnType<typeof neon> } | undefined;

/**
 * Whether the database answers at all: `select 1` over SQL-over-HTTP within
 * LIVENESS_PROBE_TIMEOUT_MS, or any other answer this isolate received while the probe ran (under
 * load the probe may queue behind other queries for a pooled connection; their answers prove the
 * database works just as well).
 */
function probeDatabase(connectionString: string): Promise<boolean> {
  const shared = probeInFlight;
  if (
    shared?.connectionString === connectionString &&
    Date.now() - shared.startedAt < LIVENESS_PROBE_TIMEOUT_MS
  )
    return verdictBy(shared);
  if (probeSql?.connectionString !== connectionString)
    probeSql = { connectionString, sql: neon(connectionString) };
  const startedAt = Date.now();
  // Given up by verdictBy's deadline, not by a timer of its own: that one fired late, as late as
  // the busy isolate let it, and failed the probe before its answer, already there, was read.
  const controller = new AbortController();
  probeSignals.add(controller.signal);
  const probe: Probe = {
    connectionString,
    startedAt,
    verdict: undefined,
    abort: () => controller.abort(),
  };
  void probeSql.sql
    .query(LIVENESS_PROBE_SQL, [], { fetchOptions: { signal: controller.signal } })
    .then(
      () => true,
      () => lastAnswerAt > startedAt,
    )
    .then((verdict) => {
      probe.verdict = verdict;
      if (probeInFlight === probe) probeInFlight = undefined;
    });
  probeInFlight = probe;
  return verdictBy(probe);
}

/**
 * A probe's verdict by its deadline, timed in the caller's own request. A probe's fetch belongs to
 * the request that sent it; when that request ends first (its own query answered, or it answered
 * 503), the fetch is cancelled with it and its verdict may never come for the others. So
 * no query waits on a probe past its deadline (the database then counts as answering only if
 * something else was answered meanwhile), and a probe older than its deadline is not shared: a
 * new one is sent. Without this, after a spell of load a paused database was noticed only at
 * QUERY_TIMEOUT_MS (30 s) instead of 1.5 s (then the deadline), until a restart.
 */
function verdictBy(probe: Probe): Promise<boolean> {
  const deadline = probe.startedAt + LIVENESS_PROBE_TIMEOUT_MS + 50;
  return new Promise<boolean>((resolve) => {
    // Timers of the caller's own request: the probe's verdict is read when it is there, every
    // VERDICT_POLL_MS, and silence judged at the deadline.
    const wait = (ms: number) => {
      const due = Date.now() + ms;
      setTimeout(() => {
        if (probe.verdict !== undefined) {
          resolve(probe.verdict);
          return;
        }
        const now = Date.now();
        if (now < deadline) {
          wait(Math.min(VERDICT_POLL_MS, deadline - now));
          return;
        }
        // A timer that fires late found the isolate busy (other requests' work held it): answers
        // that arrived meanwhile may still be queued behind this callback, unread. Only a timer
        // that fires on time judges the database silent; a late one waits a little more.
        if (now - due > LATE_TIMER_MS) {
          wait(LATE_RECHECK_MS);
          return;
        }
        const answered = lastAnswerAt > probe.startedAt;
        if (!answered) probe.abort();
        resolve(answered);
      }, ms);
    };
    wait(Math.max(0, Math.min(VERDICT_POLL_MS, deadline - Date.now())));
  });
}

/** How often a query waiting on a probe looks for its verdict (ms). */
const VERDICT_POLL_MS = 50;

/**
 * How late a probe's deadline may fire and still judge (ms), and how long a late one waits more.
 * Under 60 concurrent E13s of 700 KB (npm run dev, 2 CPUs) the one isolate spent seconds parsing
 * them: timers fired seconds late and judged before the probe's answer, queued behind them, was
 * read, and most of those requests answered 503 on a working database.
 */
const LATE_TIMER_MS = 100;
const LATE_RECHECK_MS = 50;

/**
 * `pending` (one query, or one HTTP batch), or a DatabaseUnresponsiveError as soon as the database
 * fails a liveness check while it waits; `onStalled` runs then (it aborts the fetch or destroys the
 * session's socket, so Postgres rolls back what was not committed).
 *
 * A query that has waited LIVENESS_CHECK_AFTER_MS without an answer is either waiting its turn
 * (a row lock held by a concurrent write, a retried Idempotency-Key waiting for the first claim, a
 * compute waking) or talking to a database that stopped answering; from the client both are
 * silence. The probe tells them apart: a database that answers `select 1` is working, and the
 * query goes on waiting (checked again every LIVENESS_CHECK_AFTER_MS, up to QUERY_TIMEOUT_MS); one
 * that does not is unavailable, and the request answers 503 with Retry-After after about
 * LIVENESS_CHECK_AFTER_MS + LIVENESS_PROBE_TIMEOUT_MS (1 s) instead of QUERY_TIMEOUT_MS; while
 * the isolate knows the database to be silent (silentAt), after a probe's timeout at most. A
 * query answered within LIVENESS_CHECK_AFTER_MS (nearly all of them) costs a timer and no probe.
 */
function watchLiveness<T>(
  pending: Promise<T>,
  connectionString: string,
  onStalled: (error: Error) => void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const stalled = new Promise<never>((_, reject) => {
    const check = async () => {
      const alive = await probeDatabase(connectionString);
      if (settled) return;
      if (alive) {
        timer = setTimeout(check, LIVENESS_CHECK_AFTER_MS);
        return;
      }
      silentAt = Date.now();
      const error = new DatabaseUnresponsiveError(LIVENESS_PROBE_TIMEOUT_MS);
      onStalled(error);
      reject(error);
    };
    timer = setTimeout(check, firstCheckAfter());
  });
  return Promise.race([pending, stalled]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

/**
 * `promise`, or a DatabaseTimeoutError once `ms` have passed without it settling; `onExpire` runs
 * then. (A late rejection of `promise` is still handled: the race listens to it.)
 */
function withDeadline<T>(promise: Promise<T>, ms: number, onExpire: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onExpire();
      reject(new DatabaseTimeoutError(ms));
    }, ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * Gives every query of the client's session QUERY_TIMEOUT_MS, and watches its liveness while it
 * waits (watchLiveness). At the first one unanswered or failing the check, the session's socket is
 * destroyed (Postgres rolls back what the session had not committed) and
 * `expired` rejects, so the transaction gives up then, without waiting for drizzle's ROLLBACK on a
 * socket that may never answer again.
 */
function guardQueries(client: Client, connectionString: string, destroy: () => void) {
  let expire: (error: Error) => void = () => {};
  const expired = new Promise<never>((_, reject) => {
    expire = reject;
  });
  const guard = { expired, timedOut: false };
  const giveUp = () => {
    guard.timedOut = true;
    destroy();
  };
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const pending = query(...args);
    if (!(pending instanceof Promise)) return pending; // the callback form; drizzle never uses it
    const answer = pending.then((result: unknown) => {
      lastAnswerAt = Date.now();
      return result;
    });
    return withDeadline(
      watchLiveness(answer, connectionString, giveUp),
      QUERY_TIMEOUT_MS,
      giveUp,
    ).catch((error: unknown) => {
      if (error instanceof DatabaseTimeoutError) expire(error);
      throw error;
    });
  };
  return guard;
}

/** A connected WebSocket session whose queries are guarded (guardQueries). */
interface Session {
  client: Client;
  guard: ReturnType<typeof guardQueries>;
  /** Ends the session through `waitUntil`, unless it is gone already. */
  close(): void;
}

/**
 * Opens one client (one WebSocket session) for one transaction. Its 'error' listener is attached
 * before connecting: a failed or lost connection is also emitted as an event (workerd fires
 * "Network connection lost" after close), and an unheard one would be an uncaught exception.
 * (Locally workerd also logs "uncaught exception; source = Uncaught (in promise) ... Network
 * connection lost" once per failed connection, for a plain fetch or WebSocket whose failure is
 * handled too: its own log line, not a rejection escaping here. Vitest fails a run on any
 * unhandled rejection, and the fault tests in test/faults/ raise none.)
 */
async function openSession(
  config: DatabaseConfig,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<Session> {
  const client = new Client({
    connectionString: config.DATABASE_URL,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on("error", () => {});
  // The driver's end() waits for the connection's 'end' event, which a connection lost
  // mid-transaction has already emitted: awaited through waitUntil, it would never settle and
  // workerd would cancel the request as hung. A session that already ended is not ended again.
  let ended = false;
  client.on("end", () => {
    ended = true;
  });
  // The driver's own connect timeout closes the WebSocket and waits for it to close; the
  // deadline also holds when that close is never acknowledged. A start-up still unanswered
  // after LIVENESS_CHECK_AFTER_MS is checked like a query (watchLiveness): a database that
  // does not answer `select 1` either fails it sooner than the deadline.
  const destroy = () => destroySocket(client);
  await withDeadline(
    watchLiveness(client.connect(), config.DATABASE_URL, destroy),
    CONNECT_TIMEOUT_MS,
    destroy,
  );
  const guard = guardQueries(client, config.DATABASE_URL, destroy);
  return {
    client,
    guard,
    // Only a connected client is ended: ending one whose socket never opened throws from inside
    // the driver instead of rejecting. A timed-out one was destroyed already; its end() would
    // wait for a close that a stuck peer may never acknowledge.
    close() {
      if (!ended && !guard.timedOut) waitUntil(client.end().catch(() => {}));
    },
  };
}

/**
 * Closes a session's WebSocket at once. The driver coalesces the writes of one turn into one
 * message that a timer sends (its `rawWrite`), and sends on whatever WebSocket its socket still
 * holds: a write made just before or after the close (a query written in the turn its deadline
 * fired, drizzle's ROLLBACK after a failed query) was sent by that timer on a closed WebSocket,
 * which workerd answers by throwing inside the timer, an uncaught exception of the isolate (16 in
 * an outside load audit at 50 clients). The socket forgets its WebSocket, so that timer, and any
 * later write, finds none: the session is gone, and its queries fail when its close arrives.
 */
export function destroySocket(client: Client): void {
  const stream = client.connection.stream as unknown as { destroy(): void; ws?: unknown };
  try {
    stream.destroy();
  } catch {
    // a WebSocket that cannot even be closed is gone already
  }
  stream.ws = undefined;
}

export function createDatabase(
  config: DatabaseConfig,
  waitUntil: (promise: Promise<unknown>) => void,
): Database {
  configureNeon(config);
  const http = httpDatabase(config.DATABASE_URL);
  return {
    http,
    async transaction(work) {
      const session = await openSession(config, waitUntil);
      try {
        return await Promise.race([
          transactionDatabase(session.client).transaction(work),
          session.guard.expired,
        ]);
      } finally {
        session.close();
      }
    },
    async *snapshot(read) {
      const session = await openSession(config, waitUntil);
      try {
        // Each query is guarded on its own (a timed-out one rejects, its socket destroyed), and
        // nothing else waits on the session, so guard.expired is only kept from going unheard.
        session.guard.expired.catch(() => {});
        await session.client.query(SNAPSHOT_BEGIN);
        const query: SessionQuery = async (text, parameters) =>
          (await session.client.query<Record<string, unknown>>(text, parameters)).rows;
        yield* read(query);
      } finally {
        session.close();
      }
    },
  };
}
