/**
 * What the bench runs on: its Postgres (database.ts), the local Neon stand-ins in a child process
 * (neon-child.ts) and the bundled Worker alone in workerd (workerd.ts), with no wrangler dev
 * proxy, inspector or request log in front of it. stop() takes it all down again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../local-db";
import { DEV_INTEGRATIONS_KEY } from "../seed/experiences";
import { type BenchDatabase, openBenchDatabase } from "./database";
import { type PlainWorkerd, startPlainWorkerd } from "./workerd";

export interface NeonEndpoints {
  httpEndpoint: string;
  wsProxy: string;
  statsUrl: string;
}

export interface Environment {
  db: BenchDatabase;
  neon: NeonEndpoints;
  neonPid: number;
  worker: PlainWorkerd;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Database round trips (SQL-over-HTTP requests + WebSocket sessions) since the last reset. */
  roundTrips(): Promise<number>;
  resetRoundTrips(): Promise<void>;
  stop(): Promise<void>;
}

type Log = (line: string) => void;

async function startNeonChild(
  log: Log,
): Promise<{ child: ChildProcess; endpoints: NeonEndpoints }> {
  const child = spawn("tsx", ["scripts/bench/neon-child.ts"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const endpoints = await new Promise<NeonEndpoints>((resolve, reject) => {
    let buffered = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const line = buffered.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve(JSON.parse(line) as NeonEndpoints);
    });
    child.once("exit", (code) => reject(new Error(`the Neon stand-ins exited (${code})`)));
  });
  log(`neon stand-ins (pid ${child.pid}): ${endpoints.httpEndpoint}, ws://${endpoints.wsProxy}`);
  return { child, endpoints };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** Stops of environments that are starting or running, for a signal handler. */
const running = new Set<() => Promise<void>>();

/** Stops every environment this process started (Ctrl-C: the scratch database is dropped too). */
export async function stopAllEnvironments(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
}

/** Starts everything; on failure stops what was started. */
export async function startEnvironment(
  log: Log,
  options: { inspector?: boolean } = {},
): Promise<Environment> {
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    running.delete(stop);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    cleanups.length = 0;
  };
  running.add(stop);
  try {
    const db = await openBenchDatabase(log);
    cleanups.push(() => db.close());
    const { child, endpoints: neon } = await startNeonChild(log);
    cleanups.push(() => stopChild(child));
    const outDir = await mkdtemp(join(tmpdir(), "winery-bench-worker-"));
    cleanups.push(() => rm(outDir, { recursive: true, force: true }));
    const started = performance.now();
    const worker = await startPlainWorkerd({
      appDir: process.cwd(),
      outDir,
      port: await freePort(),
      bindings: {
        DATABASE_URL: db.connectionString,
        NEON_HTTP_ENDPOINT: neon.httpEndpoint,
        NEON_WS_PROXY: neon.wsProxy,
        INTEGRATIONS_KEY: process.env.INTEGRATIONS_KEY ?? DEV_INTEGRATIONS_KEY,
      },
      compatibilityDate: "2026-10-01",
      compatibilityFlags: ["nodejs_compat"],
      inspector: options.inspector ?? false,
    });
    cleanups.push(() => worker.stop());
    log(
      `bundled Worker in workerd pid ${worker.pid} at ${worker.apiUrl} (bundled and started in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    return {
      db,
      neon,
      neonPid: child.pid ?? 0,
      worker,
      origin: `http://127.0.0.1:${worker.port}`,
      async roundTrips() {
        const s = (await (await fetch(neon.statsUrl)).json()) as {
          httpRequests: number;
          wsSessions: number;
        };
        return s.httpRequests + s.wsSessions;
      },
      async resetRoundTrips() {
        await fetch(`${neon.statsUrl}/reset`, { method: "POST" });
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
