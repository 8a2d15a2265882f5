import { Client, neon, neonConfig } from "@neondatabase/serverless";
import { drizzle as drizzleHttp, type NeonHttpDatabase } from "drizzle-orm/neon-http";
import { drizzle as drizzleWs, type NeonDatabase } from "drizzle-orm/neon-serverless";
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
}

/**
 * How long a transaction's WebSocket session may take to open (connection and start-up) before the
 * request gives up with 503 SERVICE_UNAVAILABLE: a database that is down but silent costs a caller
 * at most this, not the platform's own limits. A refused or cut connection fails at once anyway.
 * Neon's compute wakes from suspension well within it.
 */
export const CONNECT_TIMEOUT_MS = 2_000;

let configuredFor: string | undefined;

/**
 * Points Neon's driver at the local endpoints when they are configured (wrangler dev, tests);
 * on Cloudflare these bindings are absent and the driver talks to Neon itself.
 */
function configureNeon(config: DatabaseConfig) {
  const key = `${config.NEON_HTTP_ENDPOINT ?? ""}|${config.NEON_WS_PROXY ?? ""}`;
  if (configuredFor === key) return;
  configuredFor = key;
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

let httpHandle: { url: string; db: HttpDb } | undefined;

/**
 * The HTTP handle holds no connection (each query is its own fetch, made when it runs), so one is
 * built per isolate and connection string, not per request: drizzle() derives its relational
 * config from the whole schema each time, ~0.3 ms of CPU, which every request paid.
 */
function httpDatabase(url: string): HttpDb {
  if (httpHandle?.url !== url) {
    httpHandle = { url, db: drizzleHttp({ client: neon(url), schema, casing: "snake_case" }) };
  }
  return httpHandle.db;
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
      // One client (one WebSocket session) for one transaction. Its 'error' listener is attached
      // before connecting: a failed or lost connection is also emitted as an event (workerd fires
      // "Network connection lost" after close), and an unheard one would be an uncaught exception.
      // (Locally workerd also logs "uncaught exception; source = Uncaught (in promise) ... Network
      // connection lost" once per failed connection, for a plain fetch or WebSocket whose failure
      // is handled too: its own log line, not a rejection escaping here. Vitest fails a run on any
      // unhandled rejection, and the fault tests in test/faults/ raise none.)
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
      await client.connect();
      try {
        const db = drizzleWs({ client, schema, casing: "snake_case" });
        return await db.transaction(work);
      } finally {
        // Only a connected client is ended: ending one whose socket never opened throws from
        // inside the driver instead of rejecting.
        if (!ended) waitUntil(client.end().catch(() => {}));
      }
    },
  };
}
