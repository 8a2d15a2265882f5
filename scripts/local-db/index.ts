// Local stand-ins for Neon, used by the dev script, the seed/apikey scripts and vitest's globalSetup:
// - startEmbeddedPostgres: PGlite served over TCP (no Postgres install needed);
// - startNeonLocal: Neon's SQL-over-HTTP endpoint and WebSocket proxy in front of any Postgres;
// - applyMigrations: the committed drizzle migrations, applied with node-postgres.
//
// The Worker side points the driver at them:
//   neonConfig.fetchEndpoint = neonLocal.httpEndpoint;
//   neonConfig.wsProxy = (host, port) => `${neonLocal.wsProxy}/v2?address=${host}:${port}`;
//   neonConfig.useSecureWebSocket = false; neonConfig.pipelineTLS = false; neonConfig.pipelineConnect = false;
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { startNeonHttpServer } from "./neon-http-server";
import { startPgliteServer } from "./pglite-server";
import { createStats } from "./stats";
import { startWsRelay } from "./ws-relay";

export type { Stats } from "./stats";

export type Log = (msg: string) => void;

export interface DatabaseServer {
  connectionString: string;
  close(): Promise<void>;
}

export interface NeonLocal {
  /** For neonConfig.fetchEndpoint, e.g. http://127.0.0.1:P/sql */
  httpEndpoint: string;
  /** Host and port of the WebSocket relay, no scheme, e.g. 127.0.0.1:Q */
  wsProxy: string;
  /** GET for { httpRequests, wsSessions }; POST `${statsUrl}/reset` zeroes them. */
  statsUrl: string;
  close(): Promise<void>;
}

/**
 * PGlite (persisted in `dataDir`, or in memory when it is undefined) served over the Postgres wire
 * protocol on `port` (0 or undefined = a free port). Only the database `postgres` exists.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir?: string;
  port?: number;
  host?: string;
  log?: Log;
}): Promise<DatabaseServer> {
  // Loaded lazily: PGlite's WASM is only needed by callers that want the embedded database.
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(opts.dataDir);
  const host = opts.host ?? "127.0.0.1";
  try {
    const server = await startPgliteServer({
      db,
      host,
      ...(opts.port !== undefined && { port: opts.port }),
      ...(opts.log && { log: opts.log }),
    });
    return {
      connectionString: `postgres://postgres@${hostForUrl(host)}:${server.port}/postgres`,
      async close() {
        await server.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** The HTTP endpoint and the WebSocket relay, sharing one set of round-trip counters. */
export async function startNeonLocal(opts: {
  httpPort?: number;
  wsPort?: number;
  host?: string;
  log?: Log;
}): Promise<NeonLocal> {
  const host = opts.host ?? "127.0.0.1";
  const stats = createStats();
  const common = { host, stats, ...(opts.log && { log: opts.log }) };
  const http = await startNeonHttpServer({ ...common, port: opts.httpPort ?? 0 });
  let relay: Awaited<ReturnType<typeof startWsRelay>>;
  try {
    relay = await startWsRelay({ ...common, port: opts.wsPort ?? 0 });
  } catch (err) {
    await http.close();
    throw err;
  }
  const base = `http://${hostForUrl(host)}:${http.port}`;
  return {
    httpEndpoint: `${base}/sql`,
    wsProxy: `${hostForUrl(host)}:${relay.port}`,
    statsUrl: `${base}/__stats`,
    async close() {
      await Promise.all([http.close(), relay.close()]);
    },
  };
}

/**
 * Applies drizzle-kit's migrations (migrationsFolder/meta/_journal.json + NNNN_name.sql) with
 * node-postgres. Idempotent: drizzle records applied migrations in drizzle.__drizzle_migrations.
 */
export async function applyMigrations(
  connectionString: string,
  migrationsFolder: string,
): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    await client.end();
  }
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
