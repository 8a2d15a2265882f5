/**
 * npm run dev: the whole local stack in one command.
 *   database (embedded PGlite under DATA_DIR, or DATABASE_URL) -> Neon's SQL-over-HTTP endpoint and
 *   WebSocket relay -> migrations -> demo data on first start -> wrangler dev on 127.0.0.1:PORT.
 * Ctrl-C stops every piece.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../src/db/schema";
import { issueApiKey } from "../src/services/auth/api-keys";
import { readStackState, type StackState } from "./lib/database";
import { DATA_DIR, MIGRATIONS_DIR, PGLITE_DIR, STACK_FILE, WRANGLER_STATE_DIR } from "./lib/paths";
import {
  DEMO_CHANNEL_KEY,
  DEMO_WINERY_ID,
  isSeeded,
  type SeedResult,
  seedDemo,
} from "./lib/seed-data";
import {
  applyMigrations,
  type DatabaseServer,
  startEmbeddedPostgres,
  startNeonLocal,
} from "./local-db";

const PORT = Number(process.env.PORT ?? 8787);
const started = Date.now();
const log = (line: string) => console.log(`[dev] ${line}`);

async function prepareDatabase(): Promise<{ connectionString: string; server?: DatabaseServer }> {
  if (process.env.DATABASE_URL) {
    log("database: DATABASE_URL");
    return { connectionString: process.env.DATABASE_URL };
  }
  await mkdir(PGLITE_DIR, { recursive: true });
  const server = await startEmbeddedPostgres({
    dataDir: PGLITE_DIR,
    port: Number(process.env.DB_PORT ?? 0),
  });
  log(`database: embedded PGlite in ${PGLITE_DIR}, served at ${server.connectionString}`);
  return { connectionString: server.connectionString, server };
}

/** Seeds on first start; afterwards issues a fresh demo key (keys are stored hashed, never shown again). */
async function demoCredentials(connectionString: string): Promise<SeedResult> {
  const pool = new pg.Pool({ connectionString, max: 2 });
  pool.on("error", () => {});
  try {
    const db = drizzle({ client: pool, schema, casing: "snake_case" });
    if (!(await isSeeded(db))) {
      log("first start: seeding demo data");
      return await seedDemo(db, (line) => log(`seed: ${line}`));
    }
    const { key } = await issueApiKey(db, DEMO_WINERY_ID, `dev ${new Date().toISOString()}`);
    return { wineryId: DEMO_WINERY_ID, apiChannelKey: DEMO_CHANNEL_KEY, apiKey: key };
  } finally {
    await pool.end();
  }
}

async function waitForHealth(url: string, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

async function main() {
  if (readStackState()) {
    console.error(
      `[dev] a dev stack is already running for ${DATA_DIR} (see ${STACK_FILE}); stop it first or set DATA_DIR.`,
    );
    process.exit(1);
  }
  await mkdir(DATA_DIR, { recursive: true });
  const { connectionString, server } = await prepareDatabase();
  const neonLocal = await startNeonLocal({});
  log(
    `neon endpoints: ${neonLocal.httpEndpoint} (SQL over HTTP), ws://${neonLocal.wsProxy} (WebSocket relay)`,
  );
  await applyMigrations(connectionString, MIGRATIONS_DIR);
  log("migrations applied");
  const demo = await demoCredentials(connectionString);

  const apiUrl = `http://127.0.0.1:${PORT}/api`;
  const state: StackState = { pid: process.pid, connectionString, apiUrl };
  await writeFile(STACK_FILE, JSON.stringify(state, null, 2));

  const wrangler = spawn(
    "wrangler",
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(PORT),
      "--persist-to",
      WRANGLER_STATE_DIR,
      "--show-interactive-dev-session=false",
      "--var",
      `DATABASE_URL:${connectionString}`,
      "--var",
      `NEON_HTTP_ENDPOINT:${neonLocal.httpEndpoint}`,
      "--var",
      `NEON_WS_PROXY:${neonLocal.wsProxy}`,
    ],
    {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    },
  );

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (wrangler.exitCode === null) wrangler.kill("SIGINT");
    await rm(STACK_FILE, { force: true });
    await neonLocal.close();
    await server?.close();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  wrangler.on("exit", (code) => {
    if (!stopping) {
      console.error(`[dev] wrangler exited (${code}); stopping`);
      void stop(code ?? 1);
    }
  });

  if (await waitForHealth(`${apiUrl}/health`, wrangler)) {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`
[dev] ready in ${seconds}s
  API        ${apiUrl}            (health: ${apiUrl}/health)
  Docs       ${apiUrl}/docs
  OpenAPI    ${apiUrl}/openapi.json
  Winery     ${demo.wineryId}   channel key: ${demo.apiChannelKey}
  API key    ${demo.apiKey}
  Try:       curl -H 'APIKey: ${demo.apiKey}' -H 'Content-Type: application/json' \\
               -d '{"dateFrom":"2000-01-01T00:00:00Z","dateTo":"2100-01-01T00:00:00Z"}' ${apiUrl}/v3/contacts/query
`);
  }
}

main().catch((error: unknown) => {
  console.error(`[dev] failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
