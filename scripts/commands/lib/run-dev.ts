// npm run dev's stack, started once scripts/commands/dev.ts has checked the command line.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../../src/db/schema";
import { applyMigrations, startEmbeddedPostgres, startNeonLocal } from "../../local-db";
import { stopGroupWhenGone } from "../../local-db/group-watcher";
import { DEV_INTEGRATIONS_KEY } from "../../seed/experiences";
import { isStopping, onCleanup } from "./cli";
import { assertReachable, checkDatabaseUrl, describeUrl } from "./database";
import type { StackState } from "./dev-stack";
import { DATA_DIR, MIGRATIONS_DIR, POSTGRES_DIR, STACK_FILE, WRANGLER_STATE_DIR } from "./paths";
import {
  DEMO_CHANNEL_KEY,
  DEMO_WINERY_ID,
  DEV_KEY_NAME,
  isSeeded,
  replaceSeedKey,
  type SeedResult,
  seedDemo,
} from "./seed-data";
import { nextChange, superviseWrangler, watchHealth } from "./supervise";

const started = Date.now();
const log = (line: string) => console.log(`[dev] ${line}`);

async function prepareDatabase(dbPort: number): Promise<string> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    const connectionString = checkDatabaseUrl(fromEnv);
    await assertReachable(connectionString, "DATABASE_URL");
    log(`database: DATABASE_URL (${describeUrl(connectionString)})`);
    return connectionString;
  }
  // Restarted whenever it exits on its own: the API answers 503 meanwhile and recovers unattended.
  const server = await startEmbeddedPostgres({
    dataDir: POSTGRES_DIR,
    port: dbPort,
    log,
    restartOnExit: true,
    ownerStopping: isStopping,
  });
  onCleanup(() => server.close());
  log(`database: embedded PostgreSQL in ${POSTGRES_DIR}, at ${server.connectionString}`);
  return server.connectionString;
}

/**
 * Seeds on first start; afterwards replaces dev's own demo key (keys are stored hashed, never shown
 * again); the key `npm run seed` printed keeps working.
 */
async function demoCredentials(connectionString: string): Promise<SeedResult> {
  const pool = new pg.Pool({ connectionString, max: 2 });
  pool.on("error", () => {});
  try {
    const db = drizzle({ client: pool, schema, casing: "snake_case" });
    if (!(await isSeeded(db))) {
      log("first start: seeding demo data");
      return await seedDemo(db, (line) => log(`seed: ${line}`), DEV_KEY_NAME);
    }
    const apiKey = await replaceSeedKey(db, DEMO_WINERY_ID, DEV_KEY_NAME);
    return { wineryId: DEMO_WINERY_ID, apiChannelKey: DEMO_CHANNEL_KEY, apiKey };
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

/**
 * V8 flags for both workerd processes of wrangler dev (Miniflare passes MINIFLARE_WORKERD_V8_FLAGS
 * on). Every request crosses about ten small workers there (entry, assets router, the Worker, the
 * rate limiter's Durable Object, the outbound interceptor...), and each leaves C++ objects behind
 * JavaScript wrappers that only a full GC frees; those isolates' heaps are so small that V8 seldom
 * runs one (workerd#6894, open). So RSS climbed with every request, even on /api/health alone:
 * 147 -> 865 MiB (the Worker's workerd) and 85 -> 493 MiB (wrangler's proxy) over 60 s of health
 * at 10 connections. A 1 MiB young generation and a 4 MiB first old-generation limit make V8
 * collect early and often: the same run levels off at 304 and 172 MiB, and under the soak (E13 +
 * E17) both level off after ~100 s, near 360 and 166 MiB, where they had passed 755 and 314 MiB by
 * 120 s and kept climbing. Neither flag alone did it. See bench/HISTORY.md ("Memory under npm run dev").
 */
export const DEV_WORKERD_V8_FLAGS = "--max-semi-space-size=1 --initial-old-space-size=4";

/** The environment wrangler dev runs in: ours by default, anything the caller set wins. */
export function wranglerDevEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    WRANGLER_SEND_METRICS: "false",
    // Miniflare would fetch a sample `request.cf` object from workers.cloudflare.com at start
    // (the Worker reads none of it): offline that prints a stack trace and holds the first
    // request about 2 s. A default placeholder is used instead.
    CLOUDFLARE_CF_FETCH_ENABLED: env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
    MINIFLARE_WORKERD_V8_FLAGS: env.MINIFLARE_WORKERD_V8_FLAGS ?? DEV_WORKERD_V8_FLAGS,
    // Miniflare's local trace store (the local explorer's traces) takes every span of every
    // request through a tail worker into SQLite under DATA_DIR, kept with no retention (67 MB after
    // ~60k requests), at about 1 ms of workerd CPU per API request. The Worker's own logs are
    // unaffected (they print as before), and so is [observability] in production.
    // X_LOCAL_OBSERVABILITY=true npm run dev turns it back on.
    X_LOCAL_OBSERVABILITY: env.X_LOCAL_OBSERVABILITY ?? "false",
  };
}

/**
 * wrangler dev in a process group of its own (with its workerd and esbuild), stopped with this
 * process however it ends: by the cleanups on Ctrl-C or an error, and by a watcher
 * (stopGroupWhenGone) when this process is killed outright, so that no wrangler outlives npm run
 * dev holding the port.
 */
function startWrangler(args: string[]): { wrangler: ChildProcess; stop: () => Promise<void> } {
  const wrangler = spawn("wrangler", ["dev", ...args], {
    stdio: ["ignore", "inherit", "inherit"],
    env: wranglerDevEnv(process.env),
    detached: true,
  });
  const group = wrangler.pid;
  const watcher = group === undefined ? undefined : stopGroupWhenGone(group);
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (group !== undefined) process.kill(-group, signal);
    } catch {
      // the group is gone
    }
  };
  wrangler.once("exit", () => {
    signalGroup("SIGTERM"); // a workerd that outlived wrangler
    watcher?.kill();
  });
  /** SIGINT to wrangler, as Ctrl-C would; SIGKILL for whatever of the group is left after 5 s. */
  const stop = async () => {
    if (wrangler.exitCode === null && wrangler.signalCode === null) {
      const exited = new Promise((r) => wrangler.once("exit", r));
      wrangler.kill("SIGINT");
      const timer = setTimeout(() => signalGroup("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    signalGroup("SIGKILL"); // a workerd that would not stop would hold the port
  };
  onCleanup(stop);
  return { wrangler, stop };
}

/**
 * The stack, once checkDevCanStart (dev-start.ts) has passed; resolves with the exit status once
 * wrangler exits (the cleanups stop the rest).
 */
export async function runDev(port: number, dbPort: number): Promise<number> {
  await mkdir(DATA_DIR, { recursive: true });
  const connectionString = await prepareDatabase(dbPort);
  const neonLocal = await startNeonLocal({});
  onCleanup(() => neonLocal.close());
  log(
    `neon endpoints: ${neonLocal.httpEndpoint} (SQL over HTTP), ws://${neonLocal.wsProxy} (WebSocket relay)`,
  );
  const applied = await applyMigrations(connectionString, MIGRATIONS_DIR);
  log(applied.length ? `migrations applied: ${applied.join(", ")}` : "migrations: none pending");
  const demo = await demoCredentials(connectionString);

  const apiUrl = `http://127.0.0.1:${port}/api`;
  const state: StackState = { pid: process.pid, connectionString, apiUrl };
  await writeFile(STACK_FILE, JSON.stringify(state, null, 2));
  onCleanup(() => rm(STACK_FILE, { force: true }));

  const args = [
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    WRANGLER_STATE_DIR,
    "--show-interactive-dev-session=false",
    "--var",
    `DATABASE_URL:${connectionString}`,
    "--var",
    `NEON_HTTP_ENDPOINT:${neonLocal.httpEndpoint}`,
    "--var",
    `NEON_WS_PROXY:${neonLocal.wsProxy}`,
    // Local only: the key that seals winery integration tokens (production: a Worker secret).
    "--var",
    `INTEGRATIONS_KEY:${process.env.INTEGRATIONS_KEY ?? DEV_INTEGRATIONS_KEY}`,
  ];
  return superviseWrangler({
    start: () => {
      const { wrangler, stop } = startWrangler(args);
      const exited = new Promise<number | null>((done) =>
        wrangler.once("exit", (code) => done(code)),
      );
      const running = () => wrangler.exitCode === null && wrangler.signalCode === null;
      const ready = waitForHealth(`${apiUrl}/health`, wrangler);
      const unresponsive = ready.then((answered) =>
        answered ? watchHealth(`${apiUrl}/health`, running) : new Promise<void>(() => {}),
      );
      return { ready, exited, unresponsive, stop };
    },
    nextChange: () => nextChange([resolve("src"), resolve("wrangler.toml")]),
    stopping: isStopping,
    say: (line) => console.error(`[dev] ${line}`),
    onReady: (restarted) => {
      if (restarted) {
        log(`ready again: ${apiUrl}`);
        return;
      }
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
    },
  });
}
