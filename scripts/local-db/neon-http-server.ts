// Neon's SQL-over-HTTP endpoint (what `neon()` from @neondatabase/serverless POSTs to), on top of
// node-postgres, so the driver behaves locally as it does against Neon. Protocol facts:
// /work/shared/notes/neon-local.md and the driver's execute()/processQueryResult in index.mjs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { type Faults, onProbe, onQueries, refusesConnections, setFaults } from "./faults";
import { isStalePreparedStatement, statementName } from "./prepared-statements";
import { IDLE_IN_TRANSACTION_OPTION } from "./session-settings";
import type { Stats } from "./stats";

/** An answer whose cells hold more characters than this is written piece by piece (streamJson). */
const STREAM_ANSWER_CHARS = 1_000_000;
/** How much text streamJson gathers before it writes and yields. */
const STREAM_PIECE_CHARS = 256 * 1024;

/** The characters of the string cells in an answer's rows (results of a batch included). */
function cellChars(payload: unknown): number {
  const results = (payload as { results?: unknown[] } | null)?.results ?? [payload];
  let chars = 0;
  for (const result of results) {
    const rows = (result as { rows?: unknown } | null)?.rows;
    if (!Array.isArray(rows)) continue;
    for (const row of rows) {
      if (!Array.isArray(row)) continue;
      for (const cell of row) if (typeof cell === "string") chars += cell.length;
    }
  }
  return chars;
}

/** A value's JSON text in pieces: arrays and objects in the first levels member by member. */
function* jsonPieces(value: unknown, depth: number): Generator<string> {
  if (depth < 4 && Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      yield* jsonPieces(value[i] ?? null, depth + 1);
    }
    yield "]";
  } else if (depth < 4 && value !== null && typeof value === "object") {
    yield "{";
    let first = true;
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(member, depth + 1);
    }
    yield "}";
  } else if (typeof value === "string" && value.length > STREAM_PIECE_CHARS) {
    // A long cell (a page of JSON text Postgres built) is escaped slice by slice. A slice may end
    // between the halves of a surrogate pair: each half is then written as its \u escape, which
    // a JSON reader joins back into the character.
    yield '"';
    for (let at = 0; at < value.length; at += STREAM_PIECE_CHARS) {
      yield JSON.stringify(value.slice(at, at + STREAM_PIECE_CHARS)).slice(1, -1);
    }
    yield '"';
  } else {
    yield JSON.stringify(value) ?? "null";
  }
}

export interface NeonHttpServerOptions {
  port?: number;
  host?: string;
  stats: Stats;
  /** Faults set by tests through POST /__faults (see faults.ts); without it, none can be set. */
  faults?: Faults;
  /**
   * How long to wait for a connection, including the wait for a free pooled one under load, before
   * answering 08006. A stopped database fails at once (ECONNREFUSED); this bounds a silent one.
   */
  connectTimeoutMs?: number;
  log?: (msg: string) => void;
  /**
   * A session of the endpoint's own to `target` was refused because the server is shutting down
   * (57P03): the WebSocket relay's pooled connections to it must close too (WsRelay).
   */
  onShuttingDown?: (target: { host: string; port: number }) => void;
}

export interface NeonHttpServer {
  host: string;
  port: number;
  /**
   * The server at host:port refused a session because it is shutting down (57P03), as the
   * WebSocket relay saw it: its pools are closed (retirePools), as when a session of the
   * endpoint's own is refused.
   */
  serverShuttingDown(host: string, port: number): void;
  close(): Promise<void>;
}

interface QueryInput {
  query: string;
  params: (string | null)[];
}

/** The error body the driver turns into a NeonDbError (every key present, null where absent). */
const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "severity",
  "where",
  "table",
  "column",
  "schema",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;
type ErrorBody = { message: string } & Record<(typeof ERROR_FIELDS)[number], string | null>;

class BadRequest extends Error {}

/** The request reached the endpoint, but its connection is to be cut before any answer. */
const CUT = Symbol("cut");
/** The request reached the endpoint and is held: its connection stays open, never answered. */
const STALL = Symbol("stall");

const ISOLATION_LEVELS: Record<string, string> = {
  Serializable: "SERIALIZABLE",
  RepeatableRead: "REPEATABLE READ",
  ReadCommitted: "READ COMMITTED",
  ReadUncommitted: "READ UNCOMMITTED",
};

// Every value stays the text Postgres sent: the driver parses types itself.
const rawText: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

function toQueryInput(value: unknown): QueryInput {
  if (typeof value !== "object" || value === null) throw new BadRequest("query must be an object");
  const { query, params = [] } = value as { query?: unknown; params?: unknown };
  if (typeof query !== "string") throw new BadRequest("query.query must be a string");
  if (!Array.isArray(params)) throw new BadRequest("query.params must be an array");
  // The driver already serialises parameters to strings; accept other JSON scalars as their text.
  const text = params.map((p: unknown) =>
    p === null || typeof p === "string" ? p : typeof p === "object" ? JSON.stringify(p) : String(p),
  );
  return { query, params: text };
}

/** Text of a non-Postgres error; Node's AggregateError (e.g. for `localhost`) has an empty message. */
function describe(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map(describe).join("; ");
  if (err instanceof Error)
    return err.message || String((err as NodeJS.ErrnoException).code ?? err.name);
  return String(err);
}

function errorBody(err: unknown): ErrorBody {
  const body = { message: describe(err) } as ErrorBody;
  for (const f of ERROR_FIELDS) body[f] = null;
  if (err instanceof pg.DatabaseError) {
    for (const f of ERROR_FIELDS) body[f] = err[f] ?? null;
  } else {
    // No SQLSTATE: the database could not be reached or the connection broke (ECONNREFUSED,
    // "Connection terminated", connect timeout). Answer like Postgres would, class 08.
    body.message = `Couldn't connect to database: ${body.message}`;
    body.code = "08006";
    body.severity = "ERROR";
  }
  return body;
}

/**
 * How long the endpoint keeps an idle keep-alive connection open. Longer than its client's own
 * idle timeout, so that the client always closes first: workerd drops a pooled connection after
 * about 10 s idle (measured: the TIME_WAIT is then on its side), Node's server closed after 6 s by
 * default (5 s plus its 1 s keepAliveTimeoutBuffer). A Worker's fetch could then go out on a
 * connection this server was closing at that instant and fail with "Network connection lost": a
 * 503 with the database up, twice in about 40,000 requests of an outside load test at 50 clients.
 * Under Node's default headersTimeout (60 s).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000;

/** Connections per pool (two pools per database: poolFor). */
export const POOL_SIZE = 12;

/**
 * How long a pooled connection may take to start: as long as the Worker gives a session of its
 * own (CONNECT_TIMEOUT_MS, src/db/client.ts). A server that accepts connections and starts none (a
 * stopped postmaster whose sessions still run) then fails the request 08006, and the Worker answers
 * 503, while the requests on connections already open go on; waiting for a free pooled connection
 * under load is bounded by the pool's connectTimeoutMs instead.
 */
export const SESSION_START_TIMEOUT_MS = 2_000;

/** How long the liveness probes' connection stays open without a probe (as a pooled one idles). */
const PROBE_IDLE_MS = 10_000;

/** A pooled connection whose start is bounded by SESSION_START_TIMEOUT_MS. */
class PooledClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super({
      ...(typeof config === "string" ? { connectionString: config } : config),
      connectionTimeoutMillis: SESSION_START_TIMEOUT_MS,
    });
  }
}

export async function startNeonHttpServer(opts: NeonHttpServerOptions): Promise<NeonHttpServer> {
  const { stats } = opts;
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? (() => {});
  const pools = new Map<string, pg.Pool>();

  /** The database's connection string without application_name (every driver version's). */
  function databaseOf(connectionString: string): string {
    let url: URL;
    try {
      url = new URL(connectionString);
    } catch {
      throw new BadRequest("Neon-Connection-String is not a valid URL");
    }
    url.searchParams.delete("application_name");
    return url.toString();
  }

  /**
   * Two pools per database (application_name is dropped so every driver version shares them), by
   * how their prepared statements (prepared-statements.ts) are planned:
   * - `read`: statements that only read, planned on every run for their values
   *   (plan_cache_mode=force_custom_plan). A generic plan, which Postgres would pick after five
   *   runs when it looks as cheap, cannot see the values: it estimates `winery_id = $1` at the
   *   average winery's rows, and for a winery with more it nests loops that redo E10's child
   *   aggregates per product (4x slower at 50 products, growing with their square, in E10's form
   *   of the time; bench/HISTORY.md, "Prepared statements"). Every tenant-wide list has that shape.
   * - `write`: statements that write rows, and transactions with one (planKind), with Postgres's
   *   default (`auto`): they address rows by their keys (an order, a slot, a contact's email, a
   *   counter), where a generic plan is the custom one without its planning. Under `npm run dev`
   *   that took a third off Postgres's CPU per request for E1 and E9 (2.1 -> 1.5 and 2.9 -> 2.0
   *   ms) and a fifth for E11.
   */
  function poolFor(connectionString: string, kind: "read" | "write"): pg.Pool {
    const database = databaseOf(connectionString);
    const key = `${kind} ${database}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new pg.Pool({
        Client: PooledClient,
        connectionString: database,
        application_name: "neon-local-http",
        options: [
          `-c plan_cache_mode=${kind === "read" ? "force_custom_plan" : "auto"}`,
          // A session idle in a transaction has lost its client: Postgres ends it.
          IDLE_IN_TRANSACTION_OPTION,
        ].join(" "),
        connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
        idleTimeoutMillis: 10_000,
        max: POOL_SIZE,
      });
      // An idle client whose server died emits here; without a listener the process would crash.
      // The pool drops that client and opens fresh ones later, so it recovers by itself.
      pool.on("error", (err) => log(`neon-http: idle connection error: ${err.message}`));
      pools.set(key, pool);
    }
    return pool;
  }

  /**
   * Ends a database's pools (their idle sessions close at once, the busy ones when released);
   * the next request opens new ones. For a server that refuses new sessions because it is
   * shutting down (57P03): a smart shutdown (SIGTERM, `pg_ctl stop -m smart`) waits for every
   * session to end, and the pools' idle ones, reused by every read, never did, so the server
   * never stopped, npm run dev never restarted it, and every request that needed a new session
   * answered 503 for as long as traffic went on.
   */
  function retirePools(refused: pg.Pool): void {
    const found = [...pools].find(([, pool]) => pool === refused)?.[0];
    if (found === undefined) return;
    const database = found.slice(found.indexOf(" ") + 1);
    retireDatabase(database);
    opts.onShuttingDown?.(databaseTarget(database));
  }

  function retireDatabase(database: string): void {
    endProbeClient(database);
    for (const kind of ["read", "write"] as const) {
      const key = `${kind} ${database}`;
      const pool = pools.get(key);
      if (!pool) continue;
      pools.delete(key);
      log(`neon-http: the server is shutting down; closing the ${kind} pool's sessions`);
      void pool.end().catch(() => {});
    }
  }

  async function run(client: pg.PoolClient, q: QueryInput, prepare: boolean) {
    // queryMode 'extended' (see pg's Query.requiresPreparation) forces Parse/Bind/Execute even
    // without parameters, so several statements in one string fail with 42601 exactly as on Neon.
    // A text the application repeats runs as a named prepared statement (prepared-statements.ts).
    const config: pg.QueryArrayConfig & { queryMode: "extended" } = {
      name: prepare ? statementName(client, q.query) : undefined,
      text: q.query,
      values: q.params,
      rowMode: "array",
      types: rawText,
      queryMode: "extended",
    };
    const r = await client.query(config);
    return {
      rowAsArray: true,
      fields: r.fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: "text",
      })),
      rows: r.rows as (string | null)[][],
      command: r.command,
      rowCount: r.rowCount,
    };
  }

  /**
   * Runs `fn` on a pooled connection while the caller is still there. When the caller goes away
   * first (the Worker gave up on a database that does not answer, and told its client 503), what
   * it sent must not run later: the connection is reset (RST, so Postgres drops the statements
   * still unread in its socket, which a stopped server would otherwise run once resumed, BEGIN to
   * COMMIT), and a batch sends nothing more.
   */
  async function withClient<T>(
    pool: pg.Pool,
    signal: AbortSignal,
    fn: (c: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      if ((err as { code?: unknown }).code === "57P03") retirePools(pool);
      throw err;
    }
    // pg-pool removes its error listener while a client is checked out; if the server goes away
    // mid-query the client would emit an unhandled 'error' and crash the process. The query
    // itself still rejects, which is what reaches the caller.
    const onError = (err: Error) => log(`neon-http: connection lost: ${err.message}`);
    client.on("error", onError);
    let broken: Error | undefined;
    const abandon = () => {
      broken = new Error("the caller went away");
      const { stream } = (client as unknown as { connection: { stream: Socket } }).connection;
      stream.resetAndDestroy();
    };
    signal.addEventListener("abort", abandon, { once: true });
    try {
      if (signal.aborted) throw new Error("the caller went away");
      return await fn(client);
    } catch (err) {
      // A client whose connection failed (no SQLSTATE, or a FATAL such as 57P01 admin_shutdown)
      // must not go back to the pool.
      const fatal =
        err instanceof pg.DatabaseError && (err.severity === "FATAL" || err.severity === "PANIC");
      // Nor one holding a prepared statement that can no longer run (its names die with it).
      if (!(err instanceof pg.DatabaseError) || fatal || isStalePreparedStatement(err))
        broken = err as Error;
      throw err;
    } finally {
      signal.removeEventListener("abort", abandon);
      client.off("error", onError);
      client.release(broken ?? false);
    }
  }

  /**
   * The Worker's liveness probe, answered on a connection of its own (one per database, kept open
   * between probes): it asks whether the server answers at all, so it must not queue for a pooled
   * connection behind queries that wait on row locks (with all of them taken, a working database
   * would look silent and the Worker would answer 503). Neon's endpoint has no such queue either.
   * Kept open, a probe costs the server one round trip, as on Neon: opened for each probe, it
   * cost two more (the start-up), and a database 180 ms away each way already failed the Worker's
   * 0.7 s (an outside audit's latency proxy: every request 503 on a working database). A server
   * that does not answer keeps the probe (or the connection's start-up) waiting until the Worker
   * gives up: then the connection is destroyed, and the next probe opens a new one. Closed after
   * PROBE_IDLE_MS without a probe, as the pools' idle connections are. Probes that arrive
   * together (a loaded Worker's overlap) run one after another on it: the connection answers one
   * query at a time, and pg's own queue for more is deprecated (gone in pg 9).
   */
  type ProbeClient = {
    client: pg.Client;
    ready: Promise<unknown>;
    /** The last probe sent on the connection, settled or not: the next one runs after it. */
    tail: Promise<unknown>;
    idle?: NodeJS.Timeout;
  };
  const probeClients = new Map<string, ProbeClient>();
  const dropProbeClient = (database: string, client: pg.Client) => {
    const held = probeClients.get(database);
    if (held?.client !== client) return;
    probeClients.delete(database);
    clearTimeout(held.idle);
  };
  /** Closes a database's probe connection (idle, or its server shutting down: see retirePools). */
  function endProbeClient(database: string): void {
    const held = probeClients.get(database);
    if (!held) return;
    dropProbeClient(database, held.client);
    void held.client.end().catch(() => {});
  }
  function probeClientFor(database: string): ProbeClient {
    const held = probeClients.get(database);
    if (held) {
      clearTimeout(held.idle);
      return held;
    }
    const client = new pg.Client({
      connectionString: database,
      application_name: "neon-local-probe",
    });
    client.on("error", (err) => {
      log(`neon-http: liveness connection lost: ${err.message}`);
      dropProbeClient(database, client);
    });
    client.on("end", () => dropProbeClient(database, client));
    const ready = client.connect();
    ready.catch(() => dropProbeClient(database, client));
    const fresh: ProbeClient = { client, ready, tail: ready.catch(() => {}) };
    probeClients.set(database, fresh);
    return fresh;
  }
  async function answerProbe(connectionString: string, input: QueryInput, signal: AbortSignal) {
    const database = databaseOf(connectionString);
    if (signal.aborted) throw new Error("the caller went away");
    const held = probeClientFor(database);
    const { client } = held;
    const abandon = () => {
      dropProbeClient(database, client);
      (client as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
    };
    signal.addEventListener("abort", abandon, { once: true });
    const turn = held.tail.then(async () => {
      await held.ready;
      signal.throwIfAborted();
      return run(client as pg.PoolClient, input, false);
    });
    held.tail = turn.catch(() => {});
    try {
      return await turn;
    } finally {
      signal.removeEventListener("abort", abandon);
      if (probeClients.get(database) === held) {
        clearTimeout(held.idle);
        held.idle = setTimeout(() => endProbeClient(database), PROBE_IDLE_MS);
        held.idle.unref();
      }
    }
  }

  async function batch(
    client: pg.PoolClient,
    queries: QueryInput[],
    headers: IncomingMessage["headers"],
    prepare: boolean,
    signal: AbortSignal,
  ) {
    const level = headers["neon-batch-isolation-level"];
    let begin = "BEGIN";
    if (typeof level === "string") {
      const sqlLevel = ISOLATION_LEVELS[level];
      if (!sqlLevel) throw new BadRequest(`invalid Neon-Batch-Isolation-Level: ${level}`);
      begin += ` ISOLATION LEVEL ${sqlLevel}`;
    }
    if (headers["neon-batch-read-only"] === "true") begin += " READ ONLY";
    if (headers["neon-batch-deferrable"] === "true") begin += " DEFERRABLE";
    return inTransaction(client, begin, signal, async () => {
      const results = [];
      for (const q of queries) {
        signal.throwIfAborted();
        results.push(await run(client, q, prepare));
      }
      return { results };
    });
  }

  /**
   * `work` between `begin` and a COMMIT sent only while the caller is still there (withClient
   * resets the connection when it leaves, and Postgres then rolls the transaction back).
   */
  async function inTransaction<T>(
    client: pg.PoolClient,
    begin: string,
    signal: AbortSignal,
    work: () => Promise<T>,
  ): Promise<T> {
    await client.query(begin);
    try {
      const result = await work();
      signal.throwIfAborted();
      await client.query("COMMIT");
      return result;
    } catch (err) {
      // If the ROLLBACK itself fails the connection is unusable; withClient then discards it.
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    }
  }

  /**
   * A statement that may write: every text but a plain read. In autocommit, a write a stopped
   * server holds unread in its socket would run when it resumes, after the caller was told 503;
   * inside a transaction it waits for a COMMIT that only a caller still there gets.
   */
  const mayWrite = (text: string) => !/^\s*(select|show|values)\b/i.test(text);

  /**
   * The pool a statement's plans come from (poolFor): `write` for one that writes rows (an INSERT,
   * UPDATE, DELETE or MERGE anywhere in it, a data-modifying CTE included), else `read`. Not
   * mayWrite, which must be wary of every text: the app's list reads begin with WITH, and a generic
   * plan is exactly what they must not get (E10 ran 4x slower in the bench with them on `write`).
   */
  const planKind = (texts: string[]): "read" | "write" =>
    texts.some((t) => /\b(insert\s+into|update\s+\S+\s+set|delete\s+from|merge\s+into)\b/i.test(t))
      ? "write"
      : "read";

  const isKeyLookup = (text: string) => /^\s*select\b[\s\S]*\bfrom "api_keys"/i.test(text);
  /** The Worker's liveness probe: LIVENESS_PROBE_SQL in src/db/client.ts. */
  const isLivenessProbe = (body: unknown) =>
    typeof body === "object" &&
    body !== null &&
    (body as { query?: unknown }).query === "select 1 /* liveness */";

  async function handleSql(
    req: IncomingMessage,
    signal: AbortSignal,
  ): Promise<[number, unknown] | typeof CUT | typeof STALL> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")); // arrives as text/plain
    } catch {
      body = undefined;
    }
    const probe = isLivenessProbe(body);
    if (probe) {
      stats.httpRequests--; // counted on arrival; see Stats.livenessProbes
      stats.livenessProbes++;
    }
    // The whole request has arrived: a dropped connection loses it before it reaches Postgres.
    if (opts.faults) {
      const action = probe ? onProbe(opts.faults) : onQueries(opts.faults, 1);
      if (action === "cut") return CUT;
      if (action === "stall") return STALL;
      if (action === "delay") await sleep(opts.faults.latencyMs);
    }
    if (body === undefined) throw new BadRequest("request body is not valid JSON");
    const connectionString = req.headers["neon-connection-string"];
    if (typeof connectionString !== "string")
      throw new BadRequest("missing Neon-Connection-String header");
    if (typeof body === "object" && body !== null && "queries" in body) {
      const { queries } = body as { queries: unknown };
      if (!Array.isArray(queries)) throw new BadRequest("queries must be an array");
      const inputs = queries.map(toQueryInput);
      const kind = planKind(inputs.map((q) => q.query));
      return [
        200,
        await onFreshIfStale(poolFor(connectionString, kind), signal, (c, prepare) =>
          batch(c, inputs, req.headers, prepare, signal),
        ),
      ];
    }
    const input = toQueryInput(body);
    if (probe) return [200, await answerProbe(connectionString, input, signal)];
    if (isKeyLookup(input.query)) {
      stats.httpRequests--; // counted on arrival; see Stats.keyLookups
      stats.keyLookups++;
    }
    const writes = mayWrite(input.query);
    return [
      200,
      await onFreshIfStale(
        poolFor(connectionString, planKind([input.query])),
        signal,
        (c, prepare) =>
          writes
            ? inTransaction(c, "BEGIN", signal, () => run(c, input, prepare))
            : run(c, input, prepare),
      ),
    ];
  }

  /**
   * Runs `fn` with prepared statements; if one of them went stale (a migration changed what it
   * returns), once more unprepared. The failed attempt ran nothing: a batch's transaction rolled
   * back, and withClient has closed the connection that held the stale statement.
   */
  async function onFreshIfStale<T>(
    pool: pg.Pool,
    signal: AbortSignal,
    fn: (c: pg.PoolClient, prepare: boolean) => Promise<T>,
  ): Promise<T> {
    try {
      return await withClient(pool, signal, (c) => fn(c, true));
    } catch (err) {
      if (!isStalePreparedStatement(err)) throw err;
      log("neon-http: a prepared statement went stale (schema change); retried unprepared");
      return withClient(pool, signal, (c) => fn(c, false));
    }
  }

  async function applyFaults(req: IncomingMessage): Promise<[number, unknown]> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    } catch {
      return [400, { message: "request body is not valid JSON" }];
    }
    const faults = opts.faults as Faults;
    const problem = setFaults(faults, body);
    if (problem) return [400, { message: problem }];
    log(`neon-local: faults ${JSON.stringify(faults)}`);
    return [200, { ...faults }];
  }

  /**
   * Writes a large answer piece by piece (chunked), yielding to the event loop between pieces.
   * JSON.stringify of a page of 100 MB held this process for a second or more, and with it every
   * other caller: the Worker's liveness probe (`select 1`) went unanswered and requests on a
   * working database answered 503 (an outside audit: E20 pages of orders with 1 MB metadata).
   * Neon's endpoint serves each caller on its own; this keeps the local one close to that.
   */
  async function streamJson(res: ServerResponse, status: number, payload: unknown) {
    res.writeHead(status, { "content-type": "application/json" });
    let pending = "";
    for (const piece of jsonPieces(payload, 0)) {
      pending += piece;
      if (pending.length < STREAM_PIECE_CHARS) continue;
      const flushed = res.write(pending);
      pending = "";
      if (res.destroyed) return;
      // A caller that goes away while its socket is full never drains it: 'close' ends the wait.
      await new Promise<void>((resolve) => {
        if (flushed) {
          setImmediate(resolve);
          return;
        }
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.once("drain", done);
        res.once("close", done);
      });
      if (res.destroyed) return;
    }
    res.end(pending);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://local").pathname;
    let status: number;
    let payload: unknown;
    if (req.method === "GET" && path === "/__stats") {
      [status, payload] = [200, { ...stats }];
    } else if (req.method === "POST" && path === "/__stats/reset") {
      stats.httpRequests = 0;
      stats.wsSessions = 0;
      stats.keyLookups = 0;
      stats.livenessProbes = 0;
      [status, payload] = [200, { ...stats }];
    } else if (
      path === "/__faults" &&
      opts.faults &&
      (req.method === "GET" || req.method === "POST")
    ) {
      [status, payload] = req.method === "GET" ? [200, { ...opts.faults }] : await applyFaults(req);
    } else if (req.method === "POST") {
      stats.httpRequests++;
      if (opts.faults && refusesConnections(opts.faults)) {
        req.socket.destroy(); // like a database that cannot be reached: no answer at all
        return;
      }
      // The caller gone before its answer (the connection closed first): see withClient.
      const gone = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) gone.abort();
      });
      try {
        const answer = await handleSql(req, gone.signal);
        if (answer === CUT) {
          req.socket.destroy();
          return;
        }
        // Never answered; the caller's own deadline closes the connection (or close() does).
        if (answer === STALL) return;
        [status, payload] = answer;
      } catch (err) {
        status = 400;
        payload = err instanceof BadRequest ? { message: err.message } : errorBody(err);
        if (!(err instanceof BadRequest))
          log(`neon-http: ${(payload as ErrorBody).code} ${(payload as ErrorBody).message}`);
      }
    } else {
      [status, payload] = [405, { message: "method not allowed" }];
    }
    if (cellChars(payload) > STREAM_ANSWER_CHARS) {
      await streamJson(res, status, payload);
      return;
    }
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`neon-http: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      const addr = server.address();
      resolve(typeof addr === "object" && addr ? addr.port : 0);
    });
  });
  log(`neon-http: listening on http://${host}:${port}/sql`);

  return {
    host,
    port,
    serverShuttingDown(targetHost, targetPort) {
      const databases = new Set([
        ...[...pools.keys()].map((key) => key.slice(key.indexOf(" ") + 1)),
        ...probeClients.keys(),
      ]);
      for (const database of databases) {
        const { host, port } = databaseTarget(database);
        if (host === targetHost && port === targetPort) retireDatabase(database);
      }
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections(); // keep-alive sockets would otherwise hold close() open
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
      pools.clear();
      for (const database of [...probeClients.keys()]) endProbeClient(database);
      await closed;
    },
  };
}

/** The server a connection string names, as the driver gives it to the relay (address=host:port). */
function databaseTarget(database: string): { host: string; port: number } {
  const url = new URL(database);
  return { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(url.port || 5432) };
}
